import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser } from '../auth/auth.decorators';
import { eventIdPipe as uuidPipe } from '../common/pipes/event-id.pipe';
import { ApiError } from '../common/api-error';
import { ApiErrors } from '../common/api-errors.decorator';
import { ConfirmHoldDto } from './dto/confirm-hold.dto';
import { CreateHoldDto } from './dto/create-hold.dto';
import { ExtendHoldDto } from './dto/extend-hold.dto';
import { BookingView, HoldView } from './hold.view';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { HoldsService } from './holds.service';
import { IdempotencyService } from './idempotency.service';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

@ApiTags('holds')
@ApiBearerAuth()
@Controller('v1')
export class HoldsController {
  constructor(
    private readonly holds: HoldsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post('events/:eventId/holds')
  @RateLimited('holdCreate')
  @ApiOperation({ summary: 'Hold seats, all or none' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'replays the first answer for 24 h' })
  @ApiResponse({ status: 201, type: HoldView })
  @ApiErrors(
    [404, 'EVENT_NOT_FOUND | SEAT_NOT_FOUND (errors: [{ seatId }])'],
    [409, 'SEATS_UNAVAILABLE (errors: [{ seatId, reason: HELD | BOOKED }]) | IDEMPOTENCY_IN_PROGRESS'],
    [422, 'HOLD_LIMIT_EXCEEDED | IDEMPOTENCY_KEY_REUSED'],
    [429, 'RATE_LIMITED (Retry-After)'],
    [503, 'BUSY | DEPENDENCY_UNAVAILABLE (Retry-After)'],
  )
  async create(
    @Param('eventId', uuidPipe) eventId: string,
    @Body() dto: CreateHoldDto,
    @CurrentUser() user: AuthUser,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    if (idempotencyKey === undefined) {
      return this.holds.hold(user, eventId, dto.seatIds, dto.ttlSeconds);
    }
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new ApiError(400, 'VALIDATION_FAILED', 'Idempotency-Key is not valid', [
        { field: 'Idempotency-Key', message: 'must be 1-128 chars of letters, digits, . _ : -' },
      ]);
    }
    const fingerprint = this.idempotency.fingerprint({
      eventId,
      seatIds: dto.seatIds,
      ttlSeconds: dto.ttlSeconds,
    });
    const claim = await this.idempotency.claim(user.id, idempotencyKey, fingerprint);
    switch (claim.state) {
      case 'MISMATCH':
        throw new ApiError(
          422,
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used for another request',
        );
      case 'IN_PROGRESS':
        throw new ApiError(
          409,
          'IDEMPOTENCY_IN_PROGRESS',
          'A request with this Idempotency-Key is still running',
          undefined,
          {
            'retry-after': '1',
          },
        );
      case 'DONE':
        void reply.status(claim.status).header('idempotent-replayed', 'true');
        return claim.body;
      case 'NEW':
        break;
    }
    try {
      const hold = await this.holds.hold(user, eventId, dto.seatIds, dto.ttlSeconds);
      await this.idempotency.complete(user.id, idempotencyKey, fingerprint, 201, hold);
      return hold;
    } catch (e) {
      if (e instanceof ApiError && e.getStatus() < 500) {
        // a refusal (409 SEATS_UNAVAILABLE included) is the first answer, replayed like a success; 5xx
        // (busy, dependency down) says nothing about the request, so the key is freed for a retry
        await this.idempotency.complete(user.id, idempotencyKey, fingerprint, e.getStatus(), {
          statusCode: e.getStatus(),
          code: e.code,
          message: e.message,
          ...(e.errors ? { errors: e.errors } : {}),
        });
      } else {
        await this.idempotency.abandon(user.id, idempotencyKey);
      }
      throw e;
    }
  }

  @Get('holds/:holdId')
  @ApiOperation({ summary: 'Read your hold (also ended ones, for at least 24 h)' })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors([404, 'HOLD_NOT_FOUND'])
  get(@Param('holdId') holdId: string, @CurrentUser() user: AuthUser) {
    return this.holds.get(user, holdId);
  }

  @Post('holds/:holdId/extend')
  @HttpCode(200)
  @ApiOperation({ summary: 'New expiry = now + ttlSeconds (within the lifetime and extension caps)' })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors(
    [404, 'HOLD_NOT_FOUND'],
    [409, 'HOLD_NOT_ACTIVE | SEATS_UNAVAILABLE (errors: [{ seatId, reason }])'],
    [422, 'HOLD_LIFETIME_EXCEEDED | EXTENSION_LIMIT_REACHED'],
    [503, 'BUSY | DEPENDENCY_UNAVAILABLE | BOOKING_UNAVAILABLE (Retry-After)'],
  )
  extend(@Param('holdId') holdId: string, @Body() dto: ExtendHoldDto, @CurrentUser() user: AuthUser) {
    return this.holds.extend(user, holdId, dto.ttlSeconds);
  }

  @Delete('holds/:holdId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Release every seat of the hold (204 also when it already ended)' })
  @ApiResponse({ status: 204 })
  @ApiErrors(
    [404, 'HOLD_NOT_FOUND'],
    [409, 'HOLD_CONFIRMED'],
    [503, 'BUSY | DEPENDENCY_UNAVAILABLE | BOOKING_UNAVAILABLE (Retry-After)'],
  )
  async release(@Param('holdId') holdId: string, @CurrentUser() user: AuthUser): Promise<void> {
    await this.holds.release(user, holdId);
  }

  @Post('holds/:holdId/confirm')
  @ApiOperation({ summary: 'Book the held seats; the same orderId again replays the booking' })
  @ApiResponse({ status: 201, type: BookingView })
  @ApiResponse({ status: 200, type: BookingView, description: 'replay of an earlier confirm' })
  @ApiErrors(
    [404, 'HOLD_NOT_FOUND'],
    [409, 'HOLD_EXPIRED | HOLD_NOT_ACTIVE | SEATS_UNAVAILABLE (errors: [{ seatId, reason }])'],
    [
      503,
      'BUSY | DEPENDENCY_UNAVAILABLE | BOOKING_UNAVAILABLE: not booked, or outcome pending; retry with the same orderId (Retry-After)',
    ],
  )
  async confirm(
    @Param('holdId') holdId: string,
    @Body() dto: ConfirmHoldDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BookingView> {
    const { created, booking } = await this.holds.confirm(user, holdId, dto.orderId);
    void reply.status(created ? 201 : 200);
    return booking;
  }
}
