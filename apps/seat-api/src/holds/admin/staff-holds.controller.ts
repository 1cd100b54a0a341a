import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../../auth/auth-user';
import { CurrentUser, Roles } from '../../auth/auth.decorators';
import { Role } from '../../auth/roles';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { eventIdPipe } from '../../common/pipes/event-id.pipe';
import { HoldView } from '../hold.view';
import { HoldOnBehalfDto } from './dto/hold-on-behalf.dto';
import { HoldsPageView } from './dto/holds-page.view';
import { ListHoldsQuery } from './dto/list-holds.query';
import { StaffReasonDto } from './dto/staff-reason.dto';
import { StaffHoldsService } from './staff-holds.service';

/** Box-office staff on holds: agents read them (any hold also through GET /v1/holds/{holdId}), admins release them. */
@ApiTags('staff')
@ApiBearerAuth()
@Controller({ version: '1' })
export class StaffHoldsController {
  constructor(private readonly staff: StaffHoldsService) {}

  @Get('events/:eventId/holds')
  @Roles(Role.AGENT)
  @ApiOperation({
    summary: "An event's holds, a page at a time, optionally one user's or one status's (agent, admin)",
    description:
      '?limit= 1-1000 (100), ?userId=, ?status=; pass nextCursor back as ?cursor= for the next page',
  })
  @ApiResponse({ status: 200, type: HoldsPageView })
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.EVENT_NOT_FOUND, ErrorCode.DEPENDENCY_UNAVAILABLE)
  listHolds(
    @Param('eventId', eventIdPipe) eventId: string,
    @Query() query: ListHoldsQuery,
  ): Promise<HoldsPageView> {
    return this.staff.list(eventId, query);
  }

  @Post('events/:eventId/holds/on-behalf')
  @Roles(Role.AGENT)
  @ApiOperation({
    summary:
      "Hold seats for a customer, all or none: the hold is the customer's (read and confirmed with their own token); recorded in the event's audit (agent, admin)",
    description:
      "the event's and the customer's hold limits apply; after 503 AUDIT_UNAVAILABLE nothing was held",
  })
  @ApiResponse({ status: 201, type: HoldView, description: "the hold, its userId the customer's" })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.SEAT_NOT_FOUND,
    ErrorCode.SEATS_UNAVAILABLE,
    ErrorCode.EVENT_ENDED,
    ErrorCode.HOLD_LIMIT_EXCEEDED,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.BUSY,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.AUDIT_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  holdOnBehalf(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: HoldOnBehalfDto,
    @CurrentUser() user: AuthUser,
  ): Promise<HoldView> {
    const places = (dto.places ?? []).map(({ area, quantity }) => ({ area, quantity }));
    return this.staff.holdFor(user, eventId, dto.customerId, dto.seatIds ?? [], dto.ttlSeconds, places);
  }

  @Post('holds/:holdId/force-release')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: "Release anyone's live hold, with a reason; recorded in the event's audit (admin)",
    description:
      'reason: 1-500 characters, kept in the audit; after 503 AUDIT_UNAVAILABLE nothing was released',
  })
  @ApiResponse({ status: 200, type: HoldView, description: 'the hold, RELEASED' })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.HOLD_NOT_FOUND,
    ErrorCode.HOLD_NOT_ACTIVE,
    ErrorCode.HOLD_CONFIRMED,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.BUSY,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.BOOKING_UNAVAILABLE,
    ErrorCode.AUDIT_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  forceRelease(
    @Param('holdId') holdId: string,
    @Body() dto: StaffReasonDto,
    @CurrentUser() user: AuthUser,
  ): Promise<HoldView> {
    return this.staff.forceRelease(user, holdId, dto.reason);
  }
}
