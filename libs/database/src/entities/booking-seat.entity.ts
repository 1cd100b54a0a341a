import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last line of defence: the primary key (event_id, seat_id) means a seat is booked at most once. */
@Entity({ name: 'booking_seats' })
export class BookingSeatEntity {
  @PrimaryColumn('uuid', { name: 'event_id' })
  eventId!: string;

  @PrimaryColumn('text', { name: 'seat_id' })
  seatId!: string;

  @Column('uuid', { name: 'booking_id' })
  bookingId!: string;
}
