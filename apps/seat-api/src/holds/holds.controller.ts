import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser } from '../auth/auth.decorators';
import { eventIdPipe as uuidPipe } from '../common/pipes/event-id.pipe';
import { ApiErrors } from '../common/api-errors.decorator';
import { ConfirmHoldDto } from './dto/confirm-hold.dto';
import { CreateHoldDto } from './dto/create-hold.dto';
import { ExtendHoldDto } from './dto/extend-hold.dto';
import { BookingView, HoldView } from './hold.view';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { HoldsService } from './holds.service';
import { Idempotent } from './idempotency/idempotent.decorator';

@ApiTags('holds')
@ApiBearerAuth()
@Controller('v1')
export class HoldsController {
  constructor(private readonly holds: HoldsService) {}

  @Post('events/:eventId/holds')
  @RateLimited('holdCreate')
  @ApiOperation({ summary: 'Hold seats, all or none' })
  @Idempotent()
  @ApiResponse({ status: 201, type: HoldView })
  @ApiErrors(
    [404, 'EVENT_NOT_FOUND | SEAT_NOT_FOUND (errors: [{ seatId }])'],
    [409, 'SEATS_UNAVAILABLE (errors: [{ seatId, reason: HELD | BOOKED }]) | IDEMPOTENCY_IN_PROGRESS'],
    [422, 'HOLD_LIMIT_EXCEEDED | IDEMPOTENCY_KEY_REUSED'],
    [429, 'RATE_LIMITED (Retry-After)'],
    [503, 'BUSY | DEPENDENCY_UNAVAILABLE (Retry-After)'],
  )
  create(
    @Param('eventId', uuidPipe) eventId: string,
    @Body() dto: CreateHoldDto,
    @CurrentUser() user: AuthUser,
  ): Promise<HoldView> {
    return this.holds.hold(user, eventId, dto.seatIds, dto.ttlSeconds);
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
  @Idempotent()
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
  @Idempotent()
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
