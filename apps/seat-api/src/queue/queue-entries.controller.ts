import { Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { QueueEntryView } from './dto/queue-entry.view';
import { QueueService } from './queue.service';

/** A shopper's place in an event's queue: join it, read it (its pass comes with it in their turn), leave it. */
@ApiTags('queue')
@ApiBearerAuth()
@Controller({ version: '1' })
export class QueueEntriesController {
  constructor(private readonly queue: QueueService) {}

  @Post('events/:eventId/queue/entries')
  @RateLimited('holdCreate')
  @ApiOperation({
    summary: "Join the event's queue (one place per user and event)",
    description:
      '201 with a new place; 200 with the place you have (joining again after leaving or being passed over gives a new place at the back). Before salesStartAt the status is PREQUEUE: with order shuffle-then-fifo the places given before the start are shuffled then.',
  })
  @ApiResponse({ status: 201, type: QueueEntryView })
  @ApiResponse({ status: 200, type: QueueEntryView, description: 'your place, as it is' })
  @ApiErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.QUEUE_NOT_FOUND,
    ErrorCode.QUEUE_NOT_OPEN,
    ErrorCode.EVENT_CANCELLED,
    ErrorCode.SALES_CLOSED,
    ErrorCode.EVENT_ENDED,
    ErrorCode.RATE_LIMITED,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async joinQueue(
    @Param('eventId', eventIdPipe) eventId: string,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<QueueEntryView> {
    const { created, entry } = await this.queue.join(user, eventId);
    void reply.status(created ? 201 : 200);
    return entry;
  }

  @Get('queue/entries/:entryId')
  @ApiOperation({
    summary: 'Your queue entry: its place, and in your turn the admission pass',
    description:
      "read it every refreshAfterSeconds while waiting: an entry not read for the queue's idleEntryTtlSeconds is passed over when its turn comes. While ADMITTED it carries the pass (send it as header Queue-Pass with holds). Someone else's entry answers 404.",
  })
  @ApiResponse({ status: 200, type: QueueEntryView })
  @ApiErrors(ErrorCode.QUEUE_ENTRY_NOT_FOUND, ErrorCode.DEPENDENCY_UNAVAILABLE)
  queueEntry(@Param('entryId') entryId: string, @CurrentUser() user: AuthUser): Promise<QueueEntryView> {
    return this.queue.entry(user, entryId);
  }

  @Delete('queue/entries/:entryId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Leave the queue',
    description:
      'a place not reached yet is given up; in your turn, your pass takes no more holds (holds made with it go on as any hold)',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(ErrorCode.QUEUE_ENTRY_NOT_FOUND, ErrorCode.DEPENDENCY_UNAVAILABLE)
  leaveQueue(@Param('entryId') entryId: string, @CurrentUser() user: AuthUser): Promise<void> {
    return this.queue.leave(user, entryId);
  }
}
