import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BookingEntity } from '@app/database';
import { Roles } from '../../auth/auth.decorators';
import { Role } from '../../auth/roles';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { eventIdPipe } from '../../common/pipes/event-id.pipe';
import { BookingsPageView, StaffBookingView } from './dto/bookings-page.view';
import { ListBookingsQuery } from './dto/list-bookings.query';

/** Box-office staff read an event's bookings (agent, admin): PostgreSQL is the truth about who has a seat. */
@ApiTags('staff')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class StaffBookingsController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly catalogue: CatalogueService,
  ) {}

  @Get(':eventId/bookings')
  @Roles(Role.AGENT)
  @ApiOperation({ summary: "An event's bookings, oldest first, or one order's (?orderId) (agent, admin)" })
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
    return { eventId, total, items: rows.map(toStaffView) };
  }
}

function toStaffView(b: BookingEntity): StaffBookingView {
  return {
    bookingId: b.id,
    holdId: b.holdId,
    orderId: b.orderId!,
    eventId: b.eventId,
    seatIds: b.seatIds,
    status: 'CONFIRMED',
    userId: b.userId,
    bookedAt: b.createdAt.toISOString(),
  };
}
