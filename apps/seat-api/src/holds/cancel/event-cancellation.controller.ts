import { Controller, HttpCode, Logger, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Roles } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { eventIdPipe } from '../../common/pipes/event-id.pipe';
import { RequestId } from '../../common/request-id.decorator';
import { CancelledEventView } from './cancelled-event.view';
import { EventCancellation } from './event-cancellation.service';

@ApiTags('events')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class EventCancellationController {
  /** The lines that say what a request did, with its requestId (common/request-id.decorator.ts says why here). */
  private readonly logger = new Logger('Catalogue');

  constructor(private readonly cancellation: EventCancellation) {}

  @Post(':eventId/cancel')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Cancel the event (admin): no new holds, every live hold released; again: releases what is still live',
    description:
      'answers how many live holds this call released and how many stay booked; after a 503 the event stays cancelled: call again to release the rest',
  })
  @ApiResponse({ status: 200, type: CancelledEventView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.EVENT_ENDED,
    ErrorCode.BUSY,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.BOOKING_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  async cancelEvent(
    @Param('eventId', eventIdPipe) eventId: string,
    @RequestId() requestId: string,
  ): Promise<CancelledEventView> {
    const cancelled = await this.cancellation.cancel(eventId);
    this.logger.log({ msg: 'event cancelled', requestId, ...cancelled });
    return cancelled;
  }
}
