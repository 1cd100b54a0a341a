import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One row per SeatExpired event consumed from Kafka (written by apps/expiry-consumer).
 * The primary key is the CloudEvent id, so a redelivered message inserts nothing.
 */
@Entity({ name: 'hold_expiries' })
@Index('hold_expiries_hold_idx', ['holdId'])
// GET /v1/events/{eventId}/expirations: one event's rows in expiry order
@Index('hold_expiries_event_idx', ['eventId', 'expiredAt'])
export class HoldExpiryEntity {
  @PrimaryColumn('text', { name: 'event_message_id', primaryKeyConstraintName: 'hold_expiries_pkey' })
  eventMessageId!: string;

  @Column('text', { name: 'hold_id' })
  holdId!: string;

  @Column('uuid', { name: 'event_id' })
  eventId!: string;

  @Column('text', { name: 'seat_id' })
  seatId!: string;

  @Column('text', { name: 'user_id' })
  userId!: string;

  @Column('timestamptz', { name: 'expired_at' })
  expiredAt!: Date;

  @Column('bigint', {
    name: 'fencing_token',
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  fencingToken!: number;

  /** For places of a general-admission area (seatId is then the area's name too): the area; else null. */
  @Column('text', { nullable: true })
  area!: string | null;

  /** How many places of `area` went back; null for a seat. */
  @Column('integer', { nullable: true })
  quantity!: number | null;

  @Column('timestamptz', { name: 'recorded_at', default: () => 'now()' })
  recordedAt!: Date;
}
