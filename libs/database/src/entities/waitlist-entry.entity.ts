import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export const WAITLIST_STATUSES = ['WAITING', 'OFFERED', 'ACCEPTED', 'LAPSED', 'LEFT'] as const;
export type WaitlistStatus = (typeof WAITLIST_STATUSES)[number];

/**
 * A user's place in an event's waiting list: WAITING in the queue, OFFERED seats (a hold of theirs,
 * `holdId`, until `offerExpiresAt`), ACCEPTED (the offer was booked), LAPSED (the offer ended unbooked) or
 * LEFT. Written by the seat API (join, leave) and apps/waitlist (offers).
 */
@Entity({ name: 'waitlist_entries' })
// one open entry per user and event: a second join is refused, a closed entry does not count
@Index('waitlist_entries_open_idx', ['eventId', 'userId'], {
  unique: true,
  where: `status IN ('WAITING', 'OFFERED')`,
})
// the queues of an event, first come first served: its seats' (area null) and each area's
@Index('waitlist_entries_queue_idx', ['eventId', 'area', 'createdAt', 'id'], { where: `status = 'WAITING'` })
// the entry an offer hold belongs to, when that hold is released or expires
@Index('waitlist_entries_hold_idx', ['holdId'], { where: 'hold_id IS NOT NULL' })
// the asks of a show whose outcome was never stored, looked for by every run of its offers
@Index('waitlist_entries_asked_idx', ['eventId'], { where: 'offer_ask IS NOT NULL' })
@Check('waitlist_entries_quantity_check', 'quantity BETWEEN 1 AND 10')
// an entry waits for seats (of a category, or any) or for places of one area, not both
@Check('waitlist_entries_area_check', 'area IS NULL OR category IS NULL')
@Check('waitlist_entries_status_check', `status IN ('WAITING', 'OFFERED', 'ACCEPTED', 'LAPSED', 'LEFT')`)
export class WaitlistEntryEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'waitlist_entries_pkey' })
  id!: string;

  @Column('uuid', { name: 'event_id' })
  eventId!: string;

  @Column('text', { name: 'user_id' })
  userId!: string;

  @Column('integer')
  quantity!: number;

  /** Only seats of this category fit the entry; null: any. */
  @Column('text', { nullable: true })
  category!: string | null;

  /**
   * The general-admission area whose places the entry waits for (`quantity` of them); null: it waits for
   * seats. Each area has its own queue, and the seats theirs.
   */
  @Column('text', { nullable: true })
  area!: string | null;

  @Column('text')
  status!: WaitlistStatus;

  @Column('text', { name: 'hold_id', nullable: true })
  holdId!: string | null;

  @Column('timestamptz', { name: 'offer_expires_at', nullable: true })
  offerExpiresAt!: Date | null;

  /**
   * The offer hold being asked for it (the freed change and the request body: with the entry, its
   * Idempotency-Key), written before the ask and cleared when its outcome is stored; one left behind
   * names a hold that may exist with no offer recording it.
   */
  @Column('jsonb', { name: 'offer_ask', nullable: true })
  offerAsk!: { sourceEventId: string; body: string } | null;

  /**
   * Why freed seats it fitted last went to the entries behind it (the seat API's refusal code for its own
   * offer hold: RATE_LIMITED, HOLD_LIMIT_EXCEEDED, ...), and when; it kept its place.
   */
  @Column('text', { name: 'skip_reason', nullable: true })
  skipReason!: string | null;

  @Column('timestamptz', { name: 'skipped_at', nullable: true })
  skippedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
