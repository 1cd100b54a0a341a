import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The seat catalogue of one event. `seatId` is the public label, unique within the event (e.g. "A-12"). */
@Entity({ name: 'seats' })
export class SeatEntity {
  @PrimaryColumn('uuid', { name: 'event_id' })
  eventId!: string;

  @PrimaryColumn('text', { name: 'seat_id' })
  seatId!: string;

  @Column('text')
  section!: string;

  @Column('text')
  row!: string;

  @Column('integer')
  number!: number;

  @Column('text')
  category!: string;
}
