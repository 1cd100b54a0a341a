import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { SeatEntity } from './seat.entity';

/**
 * A seat taken off sale by box-office staff (a production kill, a house seat): never held or booked while
 * the row exists. PostgreSQL is the record: the seat store repairs blocked seats from here at an event's
 * first load, as it repairs booked ones (booking_seats).
 */
@Entity({ name: 'seat_blocks' })
@ForeignKey(() => SeatEntity, ['eventId', 'seatId'], ['eventId', 'seatId'], {
  name: 'seat_blocks_event_id_seat_id_fkey',
  onDelete: 'CASCADE',
})
export class SeatBlockEntity {
  @PrimaryColumn('uuid', { name: 'event_id', primaryKeyConstraintName: 'seat_blocks_pkey' })
  eventId!: string;

  @PrimaryColumn('text', { name: 'seat_id', primaryKeyConstraintName: 'seat_blocks_pkey' })
  seatId!: string;

  /** Why (staff only: the public map never shows it). */
  @Column('text')
  reason!: string;

  /** The staff member who blocked it. */
  @Column('text', { name: 'blocked_by' })
  blockedBy!: string;

  @Column('timestamptz', { name: 'blocked_at', default: () => 'now()' })
  blockedAt!: Date;
}
