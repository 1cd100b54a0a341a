import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AuditEntryEntity, onConnectionWithin } from '@app/database';
import type { QueryRunner } from 'typeorm';
import { AuditAction } from './audit-action';
import { PreparedChange, undoPrepared } from './prepared-changes';

/** What a staff action records about itself (its time is PostgreSQL's, when the entry is written). */
export interface AuditRecord {
  eventId: string;
  actor: string;
  action: AuditAction;
  target: string;
  reason?: string;
  detail?: Record<string, unknown>;
}

/**
 * The audit entries in PostgreSQL (libs/database audit_entries). Every call has a client-side deadline
 * (onConnectionWithin, as BookingRepository's): a PostgreSQL that does not answer fails the call in time
 * instead of holding a staff request, and so its change, until the link returns.
 */
@Injectable()
export class AuditLog {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Writes the entry PENDING: nobody but its writer decides it for `settleAfterMs` (PostgreSQL time).
   * With `prepared`, the action's PostgreSQL part is written in the same transaction (prepared-changes.ts).
   */
  async begin(
    id: string,
    r: AuditRecord,
    settleAfterMs: number,
    timeoutMs: number,
    prepared?: PreparedChange,
  ): Promise<void> {
    await onConnectionWithin(this.db, timeoutMs, (qr) =>
      inTransaction(qr, async () => {
        const undo = await prepared?.apply(qr);
        await this.insertPending(
          qr,
          id,
          undo ? { ...r, detail: { ...r.detail, ...undo } } : r,
          settleAfterMs,
        );
      }),
    );
  }

  private async insertPending(qr: QueryRunner, id: string, r: AuditRecord, settleAfterMs: number) {
    await qr.query(
      `INSERT INTO audit_entries (id, event_id, actor, action, target, reason, detail, status, settle_after)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'PENDING', now() + make_interval(secs => $8))`,
      [id, r.eventId, r.actor, r.action, r.target, r.reason ?? null, r.detail ?? null, settleAfterMs / 1000],
    );
  }

  /**
   * The entry of an action whose change is made in PostgreSQL alone (a price list, a promo code): written
   * DONE by the change's own transaction, so the two commit together or not at all. Returns its id.
   */
  async recordWith(m: EntityManager, r: AuditRecord): Promise<string> {
    const id = randomUUID();
    await m.query(
      `INSERT INTO audit_entries (id, event_id, actor, action, target, reason, detail, status, settle_after)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'DONE', now())`,
      [id, r.eventId, r.actor, r.action, r.target, r.reason ?? null, r.detail ?? null],
    );
    return id;
  }

  /** The entry's change happened. */
  async markDone(id: string, timeoutMs: number): Promise<void> {
    await onConnectionWithin(this.db, timeoutMs, (qr) =>
      qr.query(`UPDATE audit_entries SET status = 'DONE' WHERE id = $1 AND status = 'PENDING'`, [id]),
    );
  }

  /**
   * The entry's change did not happen, and now never will: nothing is left to claim it did, and the
   * action's PostgreSQL part, if it has one, is taken back with it (undoPrepared).
   */
  async discard(id: string, timeoutMs: number): Promise<void> {
    await onConnectionWithin(this.db, timeoutMs, (qr) =>
      inTransaction(qr, async () => {
        const [gone] = (await qr.query(
          `DELETE FROM audit_entries WHERE id = $1 AND status = 'PENDING' RETURNING action, event_id, detail`,
          [id],
        )) as [{ action: string; event_id: string; detail: Record<string, unknown> | null }[], number];
        for (const entry of gone) {
          await undoPrepared(qr, entry);
        }
      }),
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

  /** The event's PENDING entries of `actions` on any of `seatIds` (their detail's seatIds). */
  async pendingOnSeats(
    eventId: string,
    actions: readonly AuditAction[],
    seatIds: readonly string[],
    timeoutMs: number,
  ): Promise<string[]> {
    const rows = (await onConnectionWithin(this.db, timeoutMs, (qr) =>
      qr.query(
        `SELECT id FROM audit_entries
         WHERE event_id = $1 AND status = 'PENDING' AND action = ANY($2) AND detail->'seatIds' ?| $3`,
        [eventId, actions, seatIds],
      ),
    )) as { id: string }[];
    return rows.map((r) => r.id);
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

async function inTransaction(qr: QueryRunner, work: () => Promise<void>): Promise<void> {
  await qr.startTransaction();
  try {
    await work();
    await qr.commitTransaction();
  } catch (e) {
    await qr.rollbackTransaction().catch(() => undefined);
    throw e;
  }
}
