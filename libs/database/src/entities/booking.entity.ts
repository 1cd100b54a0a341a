import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type BookingStatus = 'CONFIRMED' | 'ABANDONED';

/**
 * The outcome of confirming a hold. One row per hold (hold_id is unique): CONFIRMED carries seats in
 * booking_seats; ABANDONED is written by the repair path when a confirm died half-way, so a late
 * confirm of the same hold loses the race on the unique key instead of double-booking.
 */
@Entity({ name: 'bookings' })
export class BookingEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text', { name: 'hold_id', unique: true })
  holdId!: string;

  @Column('text', { name: 'order_id', nullable: true })
  orderId!: string | null;

  @Column('uuid', { name: 'event_id' })
  eventId!: string;

  @Column('text', { name: 'user_id' })
  userId!: string;

  @Column('text')
  status!: BookingStatus;

  @Column('bigint', {
    name: 'fencing_token',
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  fencingToken!: number;

  @Column('text', { name: 'seat_ids', array: true })
  seatIds!: string[];

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
