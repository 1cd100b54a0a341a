import { Body, Controller, Get, HttpCode, Logger, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RequestId } from '../common/request-id.decorator';
import { EventSettingsDto } from './dto/event-settings.dto';
import { EventPolicy } from './policy/event-policy';
import { EventPolicyService } from './policy/event-policy.service';
import { EventPageView, EventSettingsView, EventView } from './read/event.view';
import { EventsReader } from './read/events-reader.service';
import { ListEventsQuery } from './read/list-events.query';

/** The errors of every admin change of an event's settings. */
const SETTINGS_CHANGE_ERRORS = [
  ErrorCode.FORBIDDEN,
  ErrorCode.EVENT_NOT_FOUND,
  ErrorCode.EVENT_CANCELLED,
  ErrorCode.EVENT_ENDED,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
  ErrorCode.REPLICAS_UNAVAILABLE,
];

/**
 * Reading events (any signed-in caller) and an admin's changes of an event's settings. A change applies to
 * holds made after it answers, on every instance (EventPolicyService); holds made before keep their terms.
 * Cancelling an event releases its holds: holds/event-cancellation.controller.ts.
 */
@ApiTags('events')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class EventsController {
  /** The lines that say what a request did, with its requestId (common/request-id.decorator.ts says why here). */
  private readonly logger = new Logger('Catalogue');

  constructor(
    private readonly reader: EventsReader,
    private readonly policies: EventPolicyService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Events, a page at a time: upcoming (soonest first) or past (latest first), by name',
    description:
      '?when=upcoming|past, ?q= matches part of the name in any letter case, ?limit= 1-100 (20); pass nextCursor back as ?cursor= for the next page (no nextCursor: the last page)',
  })
  @ApiResponse({ status: 200, type: EventPageView })
  @ApiErrors()
  listEvents(@Query() query: ListEventsQuery): Promise<EventPageView> {
    return this.reader.list(query);
  }

  @Get(':eventId')
  @ApiOperation({
    summary: 'One event: its layout as posted, seat counts by status, its settings',
    description:
      "counts are total, available, held and booked seats; settings are those in effect, the deployment's HOLD_* values where the event sets none",
  })
  @ApiResponse({ status: 200, type: EventView })
  @ApiErrors(ErrorCode.EVENT_NOT_FOUND, ErrorCode.DEPENDENCY_UNAVAILABLE)
  getEvent(@Param('eventId', eventIdPipe) eventId: string): Promise<EventView> {
    return this.reader.detail(eventId);
  }

  @Patch(':eventId')
  @Roles('admin')
  @ApiOperation({
    summary:
      "Change the event's hold limits (admin: a number sets its own, null the deployment's again) and seat rules",
    description:
      'applies to holds made after it answers, on every instance; existing holds keep the terms they were made under',
  })
  @ApiResponse({ status: 200, type: EventSettingsView })
  @ApiErrors(...SETTINGS_CHANGE_ERRORS, ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
  async changeEventSettings(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: EventSettingsDto,
    @RequestId() requestId: string,
  ): Promise<EventSettingsView> {
    return this.answer('event settings changed', requestId, await this.policies.changeSettings(eventId, dto));
  }

  @Post(':eventId/sales/close')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Close sales (admin): no new holds once this answers; existing holds go on',
    description:
      'existing holds can still be extended, confirmed and released; POST .../sales/open takes holds again',
  })
  @ApiResponse({ status: 200, type: EventSettingsView })
  @ApiErrors(...SETTINGS_CHANGE_ERRORS)
  async closeSales(
    @Param('eventId', eventIdPipe) eventId: string,
    @RequestId() requestId: string,
  ): Promise<EventSettingsView> {
    return this.answer('sales closed', requestId, await this.policies.setSales(eventId, 'CLOSED'));
  }

  @Post(':eventId/sales/open')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Open sales again (admin)',
    description: 'new holds are taken again once this answers; a cancelled or ended event stays closed (409)',
  })
  @ApiResponse({ status: 200, type: EventSettingsView })
  @ApiErrors(...SETTINGS_CHANGE_ERRORS)
  async openSales(
    @Param('eventId', eventIdPipe) eventId: string,
    @RequestId() requestId: string,
  ): Promise<EventSettingsView> {
    return this.answer('sales opened', requestId, await this.policies.setSales(eventId, 'OPEN'));
  }

  private answer(msg: string, requestId: string, policy: EventPolicy): EventSettingsView {
    this.logger.log({
      msg,
      requestId,
      eventId: policy.eventId,
      policyVersion: policy.version,
      sales: policy.sales,
    });
    return EventSettingsView.of(policy);
  }
}
