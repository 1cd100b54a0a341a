import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BookingEntity } from '@app/database';
import { AuthUser } from '../../auth/auth-user';
import { CurrentUser, Roles } from '../../auth/auth.decorators';
import { Role } from '../../auth/roles';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { EventIdPipe, eventIdPipe } from '../../common/pipes/event-id.pipe';
import { BookingCancelService } from './booking-cancel.service';
import { BookingsPageView, StaffBookingView } from './dto/bookings-page.view';
import { CancelledBookingView } from './dto/cancelled-booking.view';
import { ListBookingsQuery } from './dto/list-bookings.query';
import { StaffReasonDto } from './dto/staff-reason.dto';

/** Box-office staff read an event's bookings (agent, admin): PostgreSQL is the truth about who has a seat. */
@ApiTags('staff')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class StaffBookingsController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly catalogue: CatalogueService,
    private readonly cancellation: BookingCancelService,
  ) {}

  @Get(':eventId/bookings')
  @Roles(Role.AGENT)
  @ApiOperation({
    summary: "An event's bookings, oldest first, or one order's (?orderId) (agent, admin)",
    description: 'each with its customer and booking time; ?limit= and ?offset= page through them',
  })
  @ApiResponse({ status: 200, type: BookingsPageView })
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.EVENT_NOT_FOUND)
  async listBookings(
    @Param('eventId', eventIdPipe) eventId: string,
    @Query() { limit, offset, orderId }: ListBookingsQuery,
  ): Promise<BookingsPageView> {
    await this.catalogue.requireSeats(eventId);
    // only CONFIRMED rows are bookings; ABANDONED ones are markers of confirm attempts given up
    const [rows, total] = await this.db.getRepository(BookingEntity).findAndCount({
      where: { eventId, status: 'CONFIRMED', ...(orderId === undefined ? {} : { orderId }) },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { eventId, total, items: rows.map((b) => StaffBookingView.of(b)) };
  }

  @Post(':eventId/bookings/:bookingId/cancel')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary:
      "Cancel a booking, with a reason: its seats are available again at once and a BookingCancelled is published; recorded in the event's audit (admin)",
    description:
      'a booking cancelled already answers 409 BOOKING_CANCELLED; after 503 AUDIT_UNAVAILABLE nothing was cancelled',
  })
  @ApiResponse({ status: 200, type: CancelledBookingView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.BOOKING_NOT_FOUND,
    ErrorCode.BOOKING_CANCELLED,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.BUSY,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.BOOKING_UNAVAILABLE,
    ErrorCode.AUDIT_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  cancelBooking(
    @Param('eventId', eventIdPipe) eventId: string,
    @Param('bookingId', new EventIdPipe('bookingId')) bookingId: string,
    @Body() dto: StaffReasonDto,
    @CurrentUser() user: AuthUser,
  ): Promise<CancelledBookingView> {
    return this.cancellation.cancel(user, eventId, bookingId, dto.reason);
  }
}
