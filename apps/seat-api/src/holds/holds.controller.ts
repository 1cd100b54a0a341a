import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Logger,
  Param,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser } from '../auth/auth.decorators';
import { eventIdPipe as uuidPipe } from '../common/pipes/event-id.pipe';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { RequestId } from '../common/request-id.decorator';
import { HoldIds } from '../hold-store';
import { ConfirmHoldDto } from './dto/confirm-hold.dto';
import { CreateHoldDto } from './dto/create-hold.dto';
import { ExtendHoldDto } from './dto/extend-hold.dto';
import { BookingView, HoldView } from './hold.view';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { HoldReads } from './hold-reads';
import { HoldsService, HoldWanted } from './holds.service';
import { ApiIdempotencyKey } from './idempotency/api-idempotency-key.decorator';
import { IdempotentRequests } from './idempotency/idempotent-requests';

/**
 * The refusals the extend and confirm routes both document, last in each list and in this order (the
 * OpenAPI document lists a status's codes in the order given, so the document stays as it was).
 */
const IDEMPOTENT_HOLD_WRITE_ERRORS = [
  ErrorCode.IDEMPOTENCY_KEY_REUSED,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.BUSY,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
  ErrorCode.BOOKING_UNAVAILABLE,
  ErrorCode.REPLICAS_UNAVAILABLE,
];

@ApiTags('holds')
@ApiBearerAuth()
@Controller({ version: '1' })
export class HoldsController {
  /** The lines that say what a request did, with its requestId (common/request-id.decorator.ts says why here). */
  private readonly logger = new Logger('Holds');

  constructor(
    private readonly holds: HoldsService,
    private readonly reads: HoldReads,
    private readonly idempotent: IdempotentRequests,
  ) {}

  @Post('events/:eventId/holds')
  @RateLimited('holdCreate')
  @ApiOperation({
    summary: 'Hold seats, all or none: the seats named, or the best available block of a quantity',
    description:
      'either seatIds or bestAvailable, never both; a refusal names each seat and why (HELD, BOOKED, ORPHAN_SEAT, or SOLD_OUT / NOT_ENOUGH_TOGETHER for bestAvailable)',
  })
  @ApiIdempotencyKey()
  @ApiHeader({
    name: 'Queue-Pass',
    required: false,
    description:
      "while the event's on-sale queue is open: the admission pass your queue entry got in your turn (GET /v1/queue/entries/{entryId})",
  })
  @ApiResponse({ status: 201, type: HoldView })
  @ApiErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.SEAT_NOT_FOUND,
    ErrorCode.SEATS_UNAVAILABLE,
    ErrorCode.QUEUE_REQUIRED,
    ErrorCode.ADMISSION_INVALID,
    ErrorCode.EVENT_ENDED,
    ErrorCode.IDEMPOTENCY_IN_PROGRESS,
    ErrorCode.HOLD_LIMIT_EXCEEDED,
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.RATE_LIMITED,
    ErrorCode.BUSY,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  createHold(
    @Param('eventId', uuidPipe) eventId: string,
    @Body() dto: CreateHoldDto,
    @CurrentUser() user: AuthUser,
    @Headers('queue-pass') pass: string | undefined,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<HoldView> {
    return this.idempotent.run(req, reply, { eventId }, async () => {
      // the body names seats (with their ticket types or not) or what it wants, one of them (CreateHoldDto)
      const hold = await this.holds.hold(user, eventId, holdWanted(dto), dto.ttlSeconds, { pass });
      this.logger.log({
        msg: 'hold created',
        requestId: req.id,
        holdId: hold.holdId,
        eventId,
        userId: user.id,
        seats: hold.seatIds.length,
      });
      return hold;
    });
  }

  @Get('holds/:holdId')
  @ApiOperation({
    summary: 'Read your hold (also ended ones, for at least 24 h)',
    description: "someone else's hold answers 404 like an unknown one; agents and admins read any hold",
  })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors(ErrorCode.HOLD_NOT_FOUND, ErrorCode.DEPENDENCY_UNAVAILABLE)
  getHold(@Param('holdId') holdId: string, @CurrentUser() user: AuthUser) {
    return this.reads.get(user, holdId);
  }

  @Post('holds/:holdId/extend')
  @HttpCode(200)
  @ApiIdempotencyKey()
  @ApiOperation({
    summary: 'New expiry = now + ttlSeconds (within the lifetime and extension caps)',
    description:
      'the caps are the maximum ttl, lifetime and extension count the hold was made under (422 past one); a hold no longer ACTIVE answers 409',
  })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors(
    ErrorCode.HOLD_NOT_FOUND,
    ErrorCode.HOLD_NOT_ACTIVE,
    ErrorCode.SEATS_UNAVAILABLE,
    ErrorCode.IDEMPOTENCY_IN_PROGRESS,
    ErrorCode.HOLD_LIFETIME_EXCEEDED,
    ErrorCode.EXTENSION_LIMIT_REACHED,
    ...IDEMPOTENT_HOLD_WRITE_ERRORS,
  )
  extendHold(
    @Param('holdId') holdId: string,
    @Body() dto: ExtendHoldDto,
    @CurrentUser() user: AuthUser,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<HoldView> {
    return this.idempotent.run(req, reply, { holdId }, async (requestKey) => {
      const hold = await this.holds.extend(user, holdId, dto.ttlSeconds, requestKey);
      this.logger.log({
        msg: 'hold extended',
        requestId: req.id,
        holdId,
        eventId: hold.eventId,
        userId: user.id,
        expiresAt: hold.expiresAt,
      });
      return hold;
    });
  }

  @Delete('holds/:holdId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Release every seat of the hold (204 also when it already ended)',
    description: 'safe to repeat; a confirmed hold answers 409 HOLD_CONFIRMED, its seats stay booked',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(
    ErrorCode.HOLD_NOT_FOUND,
    ErrorCode.HOLD_CONFIRMED,
    ErrorCode.BUSY,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.BOOKING_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  async releaseHold(
    @Param('holdId') holdId: string,
    @CurrentUser() user: AuthUser,
    @RequestId() requestId: string,
  ): Promise<void> {
    if (await this.holds.release(user, holdId)) {
      const eventId = HoldIds.parse(holdId)?.eventId;
      this.logger.log({ msg: 'hold released', requestId, holdId, eventId, userId: user.id });
    }
  }

  @Post('holds/:holdId/confirm')
  @ApiIdempotencyKey()
  @ApiOperation({
    summary: 'Book the held seats; the same orderId again replays the booking',
    description:
      'after 503 BOOKING_UNAVAILABLE nothing is booked and the hold is still yours: retry with the same orderId',
  })
  @ApiResponse({ status: 201, type: BookingView })
  @ApiResponse({ status: 200, type: BookingView, description: 'replay of an earlier confirm' })
  // 503 BOOKING_UNAVAILABLE: not booked, or the outcome is pending; retry with the same orderId
  @ApiErrors(
    ErrorCode.HOLD_NOT_FOUND,
    ErrorCode.HOLD_EXPIRED,
    ErrorCode.HOLD_NOT_ACTIVE,
    ErrorCode.SEATS_UNAVAILABLE,
    ErrorCode.IDEMPOTENCY_IN_PROGRESS,
    ...IDEMPOTENT_HOLD_WRITE_ERRORS,
  )
  confirmHold(
    @Param('holdId') holdId: string,
    @Body() dto: ConfirmHoldDto,
    @CurrentUser() user: AuthUser,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BookingView> {
    return this.idempotent.run(req, reply, { holdId }, async () => {
      const { created, booking } = await this.holds.confirm(user, holdId, dto.orderId);
      void reply.status(created ? 201 : 200);
      if (created) {
        const { eventId, orderId } = booking;
        this.logger.log({ msg: 'hold confirmed', requestId: req.id, holdId, eventId, orderId });
      }
      return booking;
    });
  }
}

/** What a hold's body asks for, as HoldsService takes it. */
function holdWanted(dto: CreateHoldDto): HoldWanted {
  const code = dto.promoCode === undefined ? {} : { promoCode: dto.promoCode };
  if (dto.bestAvailable) {
    const counts = Object.entries(dto.ticketTypes ?? {});
    const ticketTypes = counts.flatMap(([ticketType, n]) =>
      Array.from({ length: n }, () => ({ ticketType, field: `ticketTypes.${ticketType}` })),
    );
    return { bestAvailable: dto.bestAvailable, ...(counts.length > 0 ? { ticketTypes } : {}), ...code };
  }
  // ticketTypes counts go to the places, in the order of `places`
  const counts = Object.entries(dto.ticketTypes ?? {});
  const placeTicketTypes = counts.flatMap(([ticketType, n]) =>
    Array.from({ length: n }, () => ({ ticketType, field: `ticketTypes.${ticketType}` })),
  );
  const places = dto.places
    ? {
        places: dto.places.map(({ area, quantity }) => ({ area, quantity })),
        ...(placeTicketTypes.length > 0 ? { placeTicketTypes } : {}),
      }
    : {};
  if (dto.seats) {
    return {
      ...places,
      seatIds: dto.seats.map((l) => l.seatId),
      ticketTypes: dto.seats.map((l, i) => ({
        ticketType: l.ticketType ?? '',
        field: `seats[${i}].ticketType`,
      })),
      ...code,
    };
  }
  return { seatIds: dto.seatIds ?? [], ...places, ...code };
}
