import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { ApiPublicErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { parseEventId, SeatMapQuery, SeatStreamQuery, VERSION } from './dto/seat-map.query';
import { SeatMapStreams } from './live/seat-map-streams';
import { badLastEventId } from './seat-map-errors';
import { SeatMapService } from './seat-map.service';
import { SeatMapView } from './seat-map.view';

/** A Vary header value with `field` added (once) to what an earlier hook set. */
function withVary(current: string | number | string[] | undefined, field: string): string {
  const fields = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  return fields.some((f) => f === '*' || f.toLowerCase() === field.toLowerCase())
    ? fields.join(', ')
    : [...fields, field].join(', ');
}

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
      'ETag is the map version (weak); send it back as If-None-Match to get 304 while nothing changed. ' +
      'The whole map is sent compressed (Content-Encoding br, else gzip) to a client whose ' +
      'Accept-Encoding allows it, once this version has been compressed (once per version, shared by ' +
      'all readers; a read that comes while another version is being compressed waits for that one, then ' +
      'for its own, and gets it uncompressed only after waiting out 3 others); ' +
      '?section= answers are not compressed. Vary: Accept-Encoding.',
  })
  @ApiHeader({ name: 'If-None-Match', required: false })
  @ApiHeader({ name: 'Accept-Encoding', required: false, description: 'br and gzip are offered' })
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
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer | undefined> {
    const { etag, body, encoding } = await this.seatMap.seatMap(
      eventId,
      section,
      ifNoneMatch,
      acceptEncoding,
    );
    // no-cache: a browser may keep the map but asks again each time (cheap: 304 while unchanged). The
    // ETag is weak, so one value serves every coding of a version (weak validators name equivalent
    // representations): a client that cached the gzip body revalidates it as it would the identity one.
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    // on 304 too (RFC 9110 15.4.5: the headers a 200 would carry); added to, not replacing, CORS's Origin
    void reply.header('vary', withVary(reply.getHeader('vary'), 'Accept-Encoding'));
    if (body === undefined) {
      void reply.status(304);
      return undefined;
    }
    void reply.header('content-type', 'application/json; charset=utf-8');
    if (encoding) {
      void reply.header('content-encoding', encoding);
    }
    return body;
  }

  @Get(':eventId/seats/stream')
  @RateLimited('streamOpen')
  @ApiOperation({
    summary: 'Live seat map (Server-Sent Events)',
    description:
      '`event: snapshot` (id = `<epoch>:<version>`; data {eventId, version, counts, areas?, seats}), then `event: ' +
      'changes` at most every 250 ms (same id; data {version, changes: [{seatId, status}], counts}) and, when ' +
      'general-admission areas changed, `event: areas` after it (same id; data {version, areas: [the areas that ' +
      'changed, each with its places now]}); ' +
      '`: ping` comments keep it open. Last-Event-ID (or ?lastEventId=) resumes with what changed since ' +
      'that event (and every area), or sends a new snapshot when the change log no longer has it or is another log (Redis ' +
      'lost its data: the epoch changed). Open streams get a new snapshot when that happens. Written only as fast as the ' +
      'client reads: a client that has taken nothing for SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS is dropped (it ' +
      'reconnects and resumes), one that reads slowly keeps its stream; one that lags gets the seats changed meanwhile in one event, ' +
      'or a new snapshot. A caller keeps at most SEAT_MAP_MAX_STREAMS_PER_CALLER streams open (429 ' +
      'STREAM_LIMIT_EXCEEDED); an instance at SEAT_MAP_MAX_STREAMS or its stream memory budget answers 503 ' +
      'TOO_MANY_STREAMS.',
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
    ErrorCode.STREAM_LIMIT_EXCEEDED,
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
      lastEventId === undefined ? undefined : parseEventId(lastEventId),
      req,
      reply,
    );
  }
}
