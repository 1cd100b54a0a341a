import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type AuditEntryStatus = 'PENDING' | 'DONE';

/**
 * One staff action (admin or agent) on an event: its actor, action, target, reason and time. PENDING
 * while its change may still be under way, DONE once it happened; an entry whose change did not happen
 * is deleted (apps/seat-api/src/audit/audited-actions.ts).
 */
@Entity({ name: 'audit_entries' })
// GET /v1/events/{eventId}/audit: one event's entries in time order
@Index('audit_entries_event_idx', ['eventId', 'createdAt'])
// the event's entries still to settle, found without reading its whole audit
@Index('audit_entries_pending_idx', ['eventId'], { where: `status = 'PENDING'` })
@Check('audit_entries_status_check', `status IN ('PENDING', 'DONE')`)
export class AuditEntryEntity {
  /** The action's id: also what the change carries into Redis (its staff ledger). */
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'audit_entries_pkey' })
  id!: string;

  @Column('uuid', { name: 'event_id' })
  eventId!: string;

  /** The staff member's user id (the token's `sub`). */
  @Column('text')
  actor!: string;

  @Column('text')
  action!: string;

  /** What the action was done to: a hold id, an order id, seat ids. */
  @Column('text')
  target!: string;

  @Column('text', { nullable: true })
  reason!: string | null;

  /** What else tells the action apart (the seats released, the customer held for). */
  @Column('jsonb', { nullable: true })
  detail!: Record<string, unknown> | null;

  @Column('text')
  status!: AuditEntryStatus;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  /** Until then only the request that wrote the entry may decide it. */
  @Column('timestamptz', { name: 'settle_after' })
  settleAfter!: Date;
}
