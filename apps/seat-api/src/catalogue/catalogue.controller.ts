import { Body, Controller, HttpCode, Logger, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { RequestId } from '../common/request-id.decorator';
import { Roles } from '../auth/auth.decorators';
import { CatalogueService } from './catalogue.service';
import { CreatedEventView } from './created-event.view';
import { CreateEventDto } from './dto/create-event.dto';
import { EventPolicyService } from './policy/event-policy.service';

/** Events and their seat layouts. The seat map of an event is the seat-map module's (seat-map/). */
@ApiTags('events')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class CatalogueController {
  /** The lines that say what a request did, with its requestId (common/request-id.decorator.ts says why here). */
  private readonly logger = new Logger('Catalogue');

  constructor(
    private readonly catalogue: CatalogueService,
    private readonly policies: EventPolicyService,
  ) {}

  @Post()
  @Roles('admin')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an event with its seat layout (admin)',
    description:
      'name, startsAt (in the future) and sections[].rows[]: 1-100 sections of 1-500 rows of 1-500 seats, at most 100,000 seats; seat ids are `<section>-<row>-<n>`; optional settings as PATCH takes them',
  })
  @ApiResponse({ status: 201, type: CreatedEventView })
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
  async createEvent(@Body() dto: CreateEventDto, @RequestId() requestId: string): Promise<CreatedEventView> {
    this.policies.assertUsable(dto.settings); // limits that cannot work together: 400, nothing written
    const created = await this.catalogue.createEvent(dto);
    this.logger.log({ msg: 'event created', requestId, eventId: created.eventId, seats: created.seatCount });
    return created;
  }
}
