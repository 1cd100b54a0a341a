import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { EventEntity } from './event.entity';

/** The seat catalogue of one event. `seatId` is the public label, unique within the event (e.g. "A-12"). */
/** A wheelchair place, or a companion seat beside one (null: an ordinary seat). */
export type SeatAccess = 'accessible' | 'companion';

@Entity({ name: 'seats' })
@Check('seats_access_check', `access IN ('accessible', 'companion')`)
export class SeatEntity {
  /** Deleting an event deletes its seat layout. */
  @PrimaryColumn('uuid', { name: 'event_id', primaryKeyConstraintName: 'seats_pkey' })
  @ForeignKey(() => EventEntity, { name: 'seats_event_id_fkey', onDelete: 'CASCADE' })
  eventId!: string;

  @PrimaryColumn('text', { name: 'seat_id', primaryKeyConstraintName: 'seats_pkey' })
  seatId!: string;

  @Column('text')
  section!: string;

  @Column('text')
  row!: string;

  @Column('integer')
  number!: number;

  @Column('text')
  category!: string;

  /** The seat's place in the layout as the admin posted it (0 first): the order the seat map lists. */
  @Column('integer')
  position!: number;

  /** The row's rank as the layout gave it (best-available searches rows lowest first); null: the default order. */
  @Column('integer', { name: 'row_rank', nullable: true })
  rowRank!: number | null;

  @Column('text', { nullable: true })
  access!: SeatAccess | null;
}
