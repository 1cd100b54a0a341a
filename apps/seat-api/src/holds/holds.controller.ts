import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser } from '../auth/auth.decorators';
import { eventIdPipe as uuidPipe } from '../common/pipes/event-id.pipe';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { ConfirmHoldDto } from './dto/confirm-hold.dto';
import { CreateHoldDto } from './dto/create-hold.dto';
import { ExtendHoldDto } from './dto/extend-hold.dto';
import { BookingView, HoldView } from './hold.view';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { HoldsService } from './holds.service';
import { Idempotent } from './idempotency/idempotent.decorator';

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
  constructor(private readonly holds: HoldsService) {}

  @Post('events/:eventId/holds')
  @RateLimited('holdCreate')
  @ApiOperation({ summary: 'Hold seats, all or none' })
  @Idempotent()
  @ApiResponse({ status: 201, type: HoldView })
  @ApiErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.SEAT_NOT_FOUND,
    ErrorCode.SEATS_UNAVAILABLE,
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
  ): Promise<HoldView> {
    return this.holds.hold(user, eventId, dto.seatIds, dto.ttlSeconds);
  }

  @Get('holds/:holdId')
  @ApiOperation({ summary: 'Read your hold (also ended ones, for at least 24 h)' })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors(ErrorCode.HOLD_NOT_FOUND, ErrorCode.DEPENDENCY_UNAVAILABLE)
  getHold(@Param('holdId') holdId: string, @CurrentUser() user: AuthUser) {
    return this.holds.get(user, holdId);
  }

  @Post('holds/:holdId/extend')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({ summary: 'New expiry = now + ttlSeconds (within the lifetime and extension caps)' })
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
  extendHold(@Param('holdId') holdId: string, @Body() dto: ExtendHoldDto, @CurrentUser() user: AuthUser) {
    return this.holds.extend(user, holdId, dto.ttlSeconds);
  }

  @Delete('holds/:holdId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Release every seat of the hold (204 also when it already ended)' })
  @ApiResponse({ status: 204 })
  @ApiErrors(
    ErrorCode.HOLD_NOT_FOUND,
    ErrorCode.HOLD_CONFIRMED,
    ErrorCode.BUSY,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.BOOKING_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  async releaseHold(@Param('holdId') holdId: string, @CurrentUser() user: AuthUser): Promise<void> {
    await this.holds.release(user, holdId);
  }

  @Post('holds/:holdId/confirm')
  @Idempotent()
  @ApiOperation({ summary: 'Book the held seats; the same orderId again replays the booking' })
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
  async confirmHold(
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
