import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** Whether an event sells: CLOSED can be opened again, CANCELLED is for good. */
export type SalesState = 'OPEN' | 'CLOSED' | 'CANCELLED';

/** Whether a hold by seat ids may leave one free seat alone in its row ('none') or not. */
export type OrphanRule = 'none' | 'no-single-gaps';
export const ORPHAN_RULES: readonly OrphanRule[] = ['none', 'no-single-gaps'];

/**
 * Whether a best-available request that does not ask for accessible seats may get wheelchair places and
 * companion seats: 'never', or 'when-others-gone' (only when no block of other seats fits the request).
 */
export type AccessibleSeatsForAll = 'never' | 'when-others-gone';
export const ACCESSIBLE_SEATS_FOR_ALL: readonly AccessibleSeatsForAll[] = ['never', 'when-others-gone'];

/**
 * A show on a date: the unit that seats, holds and bookings belong to.
 * Constraints, indexes and foreign keys in these entities repeat what the migrations create, under the
 * names PostgreSQL gave them there, so `migration:generate` sees no difference (entities-match-migrations.int-spec).
 */
@Entity({ name: 'events' })
@Check('events_name_check', 'length(name) BETWEEN 1 AND 200')
@Check('events_seat_count_check', 'seat_count >= 0')
@Check('events_sales_check', `sales IN ('OPEN', 'CLOSED', 'CANCELLED')`)
@Check('events_orphan_rule_check', `orphan_rule IN ('none', 'no-single-gaps')`)
@Check('events_accessible_seats_for_all_check', `accessible_seats_for_all IN ('never', 'when-others-gone')`)
// the event list pages by start time
@Index('events_starts_at_idx', ['startsAt', 'id'])
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

  @Column('text', { default: 'OPEN' })
  sales!: SalesState;

  /** Goes up with every change of `sales` or a limit (the hold store checks each hold against it). */
  @Column('integer', { name: 'policy_version', default: 1 })
  policyVersion!: number;

  // The event's own hold limits; NULL: the deployment's (HOLD_* environment values).
  @Column('integer', { name: 'default_hold_ttl_seconds', nullable: true })
  defaultHoldTtlSeconds!: number | null;

  @Column('integer', { name: 'max_hold_ttl_seconds', nullable: true })
  maxHoldTtlSeconds!: number | null;

  @Column('integer', { name: 'max_seats_per_hold', nullable: true })
  maxSeatsPerHold!: number | null;

  @Column('integer', { name: 'max_seats_per_user', nullable: true })
  maxSeatsPerUser!: number | null;

  @Column('integer', { name: 'max_hold_extensions', nullable: true })
  maxHoldExtensions!: number | null;

  @Column('integer', { name: 'max_hold_lifetime_seconds', nullable: true })
  maxHoldLifetimeSeconds!: number | null;

  /** Set at creation, never changed (the hold store keeps it with the event's free-seat index). */
  @Column('text', { name: 'orphan_rule', default: 'none' })
  orphanRule!: OrphanRule;

  /** Set at creation, never changed. */
  @Column('text', { name: 'accessible_seats_for_all', default: 'never' })
  accessibleSeatsForAll!: AccessibleSeatsForAll;

  /** The current version of the show's price list (price_lists); NULL: none, holds are not priced. */
  @Column('integer', { name: 'price_list_version', nullable: true })
  priceListVersion!: number | null;
}
