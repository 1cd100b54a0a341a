import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser, Public, Roles } from '../auth/auth.decorators';
import { Role } from '../auth/roles';
import { ApiErrors, ApiPublicErrors } from '../common/api-errors.decorator';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { ConfigureQueueDto, LetInDto, PaceQueueDto } from './dto/configure-queue.dto';
import { QueueStatusView } from './dto/queue-status.view';
import { QueueStatus } from './queue-status.cache';
import { QueueStatusStreams } from './queue-status.streams';
import { QueueService } from './queue.service';

/** What every staff change of a queue may answer besides its own refusals. */
const CHANGE_ERRORS = [
  ErrorCode.FORBIDDEN,
  ErrorCode.EVENT_NOT_FOUND,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.BUSY,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
  ErrorCode.AUDIT_UNAVAILABLE,
  ErrorCode.REPLICAS_UNAVAILABLE,
];

/**
 * An event's on-sale queue: admins set it up and steer it (each an audited action); anyone reads its status
 * (cacheable, and streamed), which is all a waiting client needs to work its position out.
 */
@ApiTags('queue')
@Controller({ path: 'events', version: '1' })
export class QueueController {
  constructor(
    private readonly queue: QueueService,
    private readonly streams: QueueStatusStreams,
  ) {}

  @Put(':eventId/queue')
  @Roles(Role.ADMIN)
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Set up the event's on-sale queue, or replace it before it opens (admin)",
    description:
      'while the queue is open (opensAt passed) a hold needs an admission pass; its times and order no longer change once it opened (409 QUEUE_OPEN: change the pace or cap, pause it, or switch it off)',
  })
  @ApiResponse({ status: 200, type: QueueStatusView })
  @ApiErrors(
    ErrorCode.QUEUE_OPEN,
    ErrorCode.EVENT_CANCELLED,
    ErrorCode.SALES_CLOSED,
    ErrorCode.EVENT_ENDED,
    ...CHANGE_ERRORS,
  )
  async configureQueue(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: ConfigureQueueDto,
    @CurrentUser() user: AuthUser,
  ): Promise<QueueStatusView> {
    return (await this.queue.configure(user, eventId, dto)).view;
  }

  @Get(':eventId/queue')
  @Public()
  @RateLimited('seatMapRead')
  @ApiOperation({
    summary: "The event's queue: its settings and where it stands (public, cacheable)",
    description:
      'servingNumber (numbers up to it had their turn), lastNumber, the pace and etaSecondsPerPlace, paused: a client works its own position out (its number minus servingNumber). Answered from memory, refreshed a few times a second; ETag (weak) with If-None-Match gives 304; Cache-Control public, max-age=2.',
  })
  @ApiHeader({ name: 'If-None-Match', required: false })
  @ApiResponse({ status: 200, type: QueueStatusView })
  @ApiResponse({ status: 304, description: 'the status is as the ETag you sent' })
  @ApiPublicErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.QUEUE_NOT_FOUND,
    ErrorCode.RATE_LIMITED,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async queueStatus(
    @Param('eventId', eventIdPipe) eventId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | undefined> {
    const status = await this.queue.status(eventId);
    void reply.header('etag', status.etag).header('cache-control', 'public, max-age=2');
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim() === status.etag)) {
      void reply.status(304);
      return undefined;
    }
    void reply.header('content-type', 'application/json; charset=utf-8');
    return status.json;
  }

  @Get(':eventId/queue/stream')
  @Public()
  @RateLimited('streamOpen')
  @ApiOperation({
    summary: "The event's queue status, live (Server-Sent Events)",
    description:
      '`event: status` with the body GET /v1/events/{eventId}/queue answers, first at once, then on each change; `: ping` comments keep it open. QUEUE_MAX_STREAMS per instance (503 TOO_MANY_STREAMS past it).',
  })
  @ApiProduces('text/event-stream')
  @ApiResponse({
    status: 200,
    description: 'text/event-stream: `status` events, `: ping` comments',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiPublicErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.QUEUE_NOT_FOUND,
    ErrorCode.RATE_LIMITED,
    ErrorCode.TOO_MANY_STREAMS,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async queueStream(
    @Param('eventId', eventIdPipe) eventId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const status = await this.queue.status(eventId);
    this.streams.open(eventId, status, req, reply);
  }

  @Delete(':eventId/queue')
  @HttpCode(204)
  @Roles(Role.ADMIN)
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Switch the event's queue off (admin)",
    description:
      'holds need no pass any more; every entry and pass is gone; holds made with a pass go on as any hold',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(ErrorCode.QUEUE_NOT_FOUND, ...CHANGE_ERRORS)
  closeQueue(@Param('eventId', eventIdPipe) eventId: string, @CurrentUser() user: AuthUser): Promise<void> {
    return this.queue.close(user, eventId);
  }

  @Post(':eventId/queue/pause')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Pause admission (admin)',
    description:
      'nobody more is admitted until resumed; passes already given stay good; on every instance at its next step',
  })
  @ApiResponse({ status: 200, type: QueueStatusView })
  @ApiErrors(ErrorCode.QUEUE_NOT_FOUND, ...CHANGE_ERRORS)
  async pauseQueue(
    @Param('eventId', eventIdPipe) eventId: string,
    @CurrentUser() user: AuthUser,
  ): Promise<QueueStatusView> {
    return viewOf(await this.queue.control(user, eventId, { mode: 'pause' }));
  }

  @Post(':eventId/queue/resume')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Resume admission at the pace (admin)',
    description: 'no credit is given for the time it was paused: admission goes on at the pace from now',
  })
  @ApiResponse({ status: 200, type: QueueStatusView })
  @ApiErrors(ErrorCode.QUEUE_NOT_FOUND, ...CHANGE_ERRORS)
  async resumeQueue(
    @Param('eventId', eventIdPipe) eventId: string,
    @CurrentUser() user: AuthUser,
  ): Promise<QueueStatusView> {
    return viewOf(await this.queue.control(user, eventId, { mode: 'resume' }));
  }

  @Patch(':eventId/queue')
  @Roles(Role.ADMIN)
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Change the queue's pace or cap while it runs (admin)",
    description:
      'admitPerMinute, maxActiveShoppers (at least one); shoppers already admitted keep their turn',
  })
  @ApiResponse({ status: 200, type: QueueStatusView })
  @ApiErrors(ErrorCode.QUEUE_NOT_FOUND, ...CHANGE_ERRORS)
  async paceQueue(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: PaceQueueDto,
    @CurrentUser() user: AuthUser,
  ): Promise<QueueStatusView> {
    if (dto.admitPerMinute === undefined && dto.maxActiveShoppers === undefined) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'Nothing to change', {
        details: [{ field: 'body', message: 'give admitPerMinute, maxActiveShoppers or both' }],
      });
    }
    return viewOf(await this.queue.control(user, eventId, { mode: 'pace', ...dto }));
  }

  @Post(':eventId/queue/admit')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Let shoppers in now, beside the pace (admin)',
    description: 'the next `count` waiting shoppers are admitted as soon as the cap has room, paused or not',
  })
  @ApiResponse({ status: 200, type: QueueStatusView })
  @ApiErrors(ErrorCode.QUEUE_NOT_FOUND, ...CHANGE_ERRORS)
  async letIntoQueue(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: LetInDto,
    @CurrentUser() user: AuthUser,
  ): Promise<QueueStatusView> {
    return viewOf(await this.queue.control(user, eventId, { mode: 'admit', count: dto.count }));
  }
}

const viewOf = (s: QueueStatus): QueueStatusView => s.view;
