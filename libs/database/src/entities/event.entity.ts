import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A show on a date: the unit that seats, holds and bookings belong to. */
@Entity({ name: 'events' })
export class EventEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @Column('timestamptz', { name: 'starts_at' })
  startsAt!: Date;

  @Column('integer', { name: 'seat_count' })
  seatCount!: number;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
