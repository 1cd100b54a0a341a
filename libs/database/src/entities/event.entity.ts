import { Check, Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A show on a date: the unit that seats, holds and bookings belong to.
 * Constraints, indexes and foreign keys in these entities repeat what the migrations create, under the
 * names PostgreSQL gave them there, so `migration:generate` sees no difference (entities-match-migrations.int-spec).
 */
@Entity({ name: 'events' })
@Check('events_name_check', 'length(name) BETWEEN 1 AND 200')
@Check('events_seat_count_check', 'seat_count > 0')
export class EventEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'events_pkey' })
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
