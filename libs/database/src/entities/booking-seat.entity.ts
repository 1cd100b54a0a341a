import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { BookingEntity } from './booking.entity';
import { SeatEntity } from './seat.entity';

/** The last line of defence: the primary key (event_id, seat_id) means a seat is booked at most once. */
@Entity({ name: 'booking_seats' })
// only a seat of the event's layout can be booked
@ForeignKey(() => SeatEntity, ['eventId', 'seatId'], ['eventId', 'seatId'], {
  name: 'booking_seats_event_id_seat_id_fkey',
})
export class BookingSeatEntity {
  @PrimaryColumn('uuid', { name: 'event_id', primaryKeyConstraintName: 'booking_seats_pkey' })
  eventId!: string;

  @PrimaryColumn('text', { name: 'seat_id', primaryKeyConstraintName: 'booking_seats_pkey' })
  seatId!: string;

  /** Deleting a booking frees its seats. */
  @Column('uuid', { name: 'booking_id' })
  @ForeignKey(() => BookingEntity, { name: 'booking_seats_booking_id_fkey', onDelete: 'CASCADE' })
  bookingId!: string;
}
