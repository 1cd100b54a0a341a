import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditEntryEntity, onConnectionWithin } from '@app/database';

/** What a staff action records about itself (its time is PostgreSQL's, when the entry is written). */
export interface AuditRecord {
  eventId: string;
  actor: string;
  action: AuditAction;
  target: string;
  reason?: string;
  detail?: Record<string, unknown>;
}

/** The staff actions the audit knows. */
export enum AuditAction {
  HOLD_FORCE_RELEASE = 'HOLD_FORCE_RELEASE',
  HOLD_ON_BEHALF = 'HOLD_ON_BEHALF',
}

/**
 * The audit entries in PostgreSQL (libs/database audit_entries). Every call has a client-side deadline
 * (onConnectionWithin, as BookingRepository's): a PostgreSQL that does not answer fails the call in time
 * instead of holding a staff request, and so its change, until the link returns.
 */
@Injectable()
export class AuditLog {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Writes the entry PENDING: nobody but its writer decides it for `settleAfterMs` (PostgreSQL time). */
  async begin(id: string, r: AuditRecord, settleAfterMs: number, timeoutMs: number): Promise<void> {
    await onConnectionWithin(this.db, timeoutMs, (qr) =>
      qr.query(
        `INSERT INTO audit_entries (id, event_id, actor, action, target, reason, detail, status, settle_after)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'PENDING', now() + make_interval(secs => $8))`,
        [
          id,
          r.eventId,
          r.actor,
          r.action,
          r.target,
          r.reason ?? null,
          r.detail ?? null,
          settleAfterMs / 1000,
        ],
      ),
    );
  }

  /** The entry's change happened. */
  async markDone(id: string, timeoutMs: number): Promise<void> {
    await onConnectionWithin(this.db, timeoutMs, (qr) =>
      qr.query(`UPDATE audit_entries SET status = 'DONE' WHERE id = $1 AND status = 'PENDING'`, [id]),
    );
  }

  /** The entry's change did not happen, and now never will: nothing is left to claim it did. */
  async discard(id: string, timeoutMs: number): Promise<void> {
    await onConnectionWithin(this.db, timeoutMs, (qr) =>
      qr.query(`DELETE FROM audit_entries WHERE id = $1 AND status = 'PENDING'`, [id]),
    );
  }

  /** The event's PENDING entries, and whether anyone may decide each now (its writer's time is up). */
  async pending(eventId: string, timeoutMs: number): Promise<{ id: string; due: boolean }[]> {
    return (await onConnectionWithin(this.db, timeoutMs, (qr) =>
      qr.query(
        `SELECT id, settle_after <= now() AS due FROM audit_entries WHERE event_id = $1 AND status = 'PENDING'`,
        [eventId],
      ),
    )) as { id: string; due: boolean }[];
  }

  /** A page of the event's DONE entries, oldest first, and how many there are. */
  page(eventId: string, limit: number, offset: number): Promise<[AuditEntryEntity[], number]> {
    return this.db.getRepository(AuditEntryEntity).findAndCount({
      where: { eventId, status: 'DONE' },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: limit,
      skip: offset,
    });
  }
}
