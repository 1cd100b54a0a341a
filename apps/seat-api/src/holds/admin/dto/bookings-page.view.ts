import { ApiProperty } from '@nestjs/swagger';
import type { BookingEntity } from '@app/database';
import { BookingView } from '../../hold.view';

/** A booking as staff see it: whose it is and when it was made, besides what its customer sees. */
export class StaffBookingView extends BookingView {
  @ApiProperty({ description: 'the customer (the hold holder)' }) userId!: string;
  @ApiProperty({ format: 'date-time' }) bookedAt!: string;

  static override of(b: BookingEntity): StaffBookingView {
    return { ...BookingView.of(b), userId: b.userId, bookedAt: b.createdAt.toISOString() };
  }
}

export class BookingsPageView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ description: "all the event's bookings (with ?orderId: that order's)" }) total!: number;
  @ApiProperty({ type: [StaffBookingView], description: 'oldest first' }) items!: StaffBookingView[];
}
