import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { ApiPublicErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { SeatMapQuery, SeatStreamQuery, VERSION } from './dto/seat-map.query';
import { SeatMapStreams } from './live/seat-map-streams';
import { badLastEventId } from './seat-map-errors';
import { SeatMapService } from './seat-map.service';
import { SeatMapView } from './seat-map.view';

/**
 * The seat map, public: it shows each seat AVAILABLE, HELD or BOOKED and never who holds it, and a
 * browser's EventSource cannot send an Authorization header anyway. Callers are rate limited per user
 * when they send a valid token, else per address.
 */
@ApiTags('events')
@Controller({ path: 'events', version: '1' })
@Public()
export class SeatMapController {
  constructor(
    private readonly seatMap: SeatMapService,
    private readonly streams: SeatMapStreams,
  ) {}

  @Get(':eventId/seats')
  @RateLimited('seatMapRead')
  @ApiOperation({
    summary: 'Seat map: every seat AVAILABLE, HELD or BOOKED (never who holds it), with counts',
    description:
      'ETag is the map version (weak); send it back as If-None-Match to get 304 while nothing changed.',
  })
  @ApiHeader({ name: 'If-None-Match', required: false })
  @ApiResponse({ status: 200, type: SeatMapView })
  @ApiResponse({ status: 304, description: 'the map is as the ETag you sent' })
  @ApiPublicErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.SECTION_NOT_FOUND,
    ErrorCode.RATE_LIMITED,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async getSeatMap(
    @Param('eventId', eventIdPipe) eventId: string,
    @Query() { section }: SeatMapQuery,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer | undefined> {
    const { etag, body } = await this.seatMap.seatMap(eventId, section, ifNoneMatch);
    // no-cache: a browser may keep the map but asks again each time (cheap: 304 while unchanged)
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    if (body === undefined) {
      void reply.status(304);
      return undefined;
    }
    void reply.header('content-type', 'application/json; charset=utf-8');
    return body;
  }

  @Get(':eventId/seats/stream')
  @RateLimited('streamOpen')
  @ApiOperation({
    summary: 'Live seat map (Server-Sent Events)',
    description:
      '`event: snapshot` (id = version; data {eventId, version, counts, seats}), then `event: changes` at ' +
      'most every 250 ms (id = version; data {version, changes: [{seatId, status}], counts}); `: ping` ' +
      'comments keep it open. Last-Event-ID (or ?lastEventId=) resumes with what changed since that ' +
      'version, or sends a new snapshot when the change log no longer has it.',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'resume after this version' })
  @ApiResponse({
    status: 200,
    description: 'text/event-stream: `snapshot` and `changes` events, `: ping` comments',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiPublicErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.RATE_LIMITED,
    ErrorCode.TOO_MANY_STREAMS,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async streamSeatMap(
    @Param('eventId', eventIdPipe) eventId: string,
    @Query() query: SeatStreamQuery,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const lastEventId = lastEventIdHeader ?? query.lastEventId;
    if (lastEventId !== undefined && !VERSION.test(lastEventId)) {
      throw badLastEventId();
    }
    await this.streams.stream(
      eventId,
      lastEventId === undefined ? undefined : Number(lastEventId),
      req,
      reply,
    );
  }
}
