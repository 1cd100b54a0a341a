import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '@app/config';
import { AuditEntryEntity } from '@app/database';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { StaffAction, StaffActionOutcome, StaffHoldStore } from '../hold-store';
import { AuditLog, AuditRecord } from './audit-log';
import { PREPARED_ACTIONS, PreparedChange } from './prepared-changes';

/** What one audit write or read may spend on PostgreSQL (as confirm's settlement reads). */
const AUDIT_TIMEOUT_MS = 1000;

/**
 * A staff action's change refused what it was asked (the hold is not there, or in another state): certain
 * that nothing changed, so its audit entry goes. Any other failure leaves that open and is decided first.
 */
export class ActionRefused extends Error {
  /** `refusal`: what the action's caller answers (a DomainError; a hold's POLICY_CHANGED is sent again). */
  constructor(readonly refusal: Error) {
    super(refusal.message);
    this.name = 'ActionRefused';
  }
}

export function auditUnavailable(): DomainError {
  return new DomainError(
    ErrorCode.AUDIT_UNAVAILABLE,
    'The audit (PostgreSQL) does not answer; nothing was done. Try again',
  );
}

/**
 * Every staff action and its audit entry commit together or not at all, across PostgreSQL (the audit) and
 * Redis (the holds), which share no transaction. So an action runs in three steps:
 *   1. its entry is written PENDING in PostgreSQL under the action's id. If PostgreSQL fails or is slow,
 *      nothing was changed: 503 AUDIT_UNAVAILABLE.
 *   2. its change is made in Redis by one script that also marks the action id applied in the event's
 *      staff ledger, and that refuses an action id marked given up (StaffHoldStore).
 *   3. the entry becomes DONE; a refusal in step 2 deletes it instead.
 * Why PostgreSQL first (rather than the change, then its record): a change in Redis cannot be taken back
 * once others see it (a seat released is held by a customer a moment later), while a PENDING entry costs
 * nothing and is never shown. The only state in between is then a PENDING entry, and Redis alone decides
 * it: its ledger says the change was APPLIED (the entry becomes DONE), or it marks the action given up,
 * after which the change can never be made, not even by a command still on its way (the entry is
 * deleted). This is confirm's rule mirrored (holds/confirm/confirm-settlement.ts: a CONFIRMING hold is
 * decided from PostgreSQL, the ABANDONED marker making a late commit lose): one store is the record of the
 * attempt, the other decides it for good, and the attempt is decided by its own request when it can, else
 * by anyone once its time is up (here: the entry's settle_after; the audit read settles before answering),
 * or, for an action with a PostgreSQL part, by the next action under its seats' lock (prepared-changes.ts).
 */
@Injectable()
export class AuditedActions {
  private readonly logger = new Logger('Audit');
  /** How long the writer of a PENDING entry may still be making its change: nobody else decides it before. */
  private readonly settleAfterMs: number;

  constructor(
    private readonly log: AuditLog,
    private readonly staff: StaffHoldStore,
    config: AppConfig,
  ) {
    const { seatLockWaitMs, seatLockLeaseMs } = config.holds;
    // the writer waits for the seat lock, makes its change within the lease, and may retry one Redis call
    this.settleAfterMs = seatLockWaitMs + seatLockLeaseMs + 2 * config.redis.commandTimeoutMs;
  }

  /**
   * Runs `change` (given the action's id and the action as `r` records it, which it must hand to its
   * store script) as audited action `r`.
   * `change` throws ActionRefused for a refusal; anything else it throws leaves open whether it happened.
   * `prepared`: the action's PostgreSQL part, written with its entry and taken back if the action is
   * given up (prepared-changes.ts); its refusal (a DomainError) is answered as it is, nothing written.
   */
  async run<T>(
    r: AuditRecord,
    change: (actionId: string, action: StaffAction) => Promise<T>,
    prepared?: PreparedChange,
  ): Promise<T> {
    if (prepared) {
      await this.settleSeats(r.eventId, prepared.seatIds);
    }
    const id = randomUUID();
    const action = { id, actor: r.actor, action: r.action, target: r.target, reason: r.reason };
    try {
      await this.log.begin(id, r, this.settleAfterMs, AUDIT_TIMEOUT_MS, prepared);
    } catch (e) {
      if (e instanceof DomainError) {
        throw e; // refused by the prepared part: the transaction was rolled back
      }
      // a commit whose answer was lost leaves a PENDING entry: Redis never saw the action, it is deleted
      this.logger.warn(`${r.action} ${r.target}: audit entry not written: ${String(e)}`);
      throw auditUnavailable();
    }
    let result: T;
    try {
      result = await change(id, action);
    } catch (e) {
      if (e instanceof ActionRefused) {
        await this.quietly(id, 'discard', () => this.log.discard(id, AUDIT_TIMEOUT_MS));
        throw e.refusal;
      }
      return this.afterFailure(r, action, e, change);
    }
    // if PostgreSQL fails now, the entry stays PENDING: the change happened, the next audit read says so
    await this.quietly(id, 'mark done', () => this.log.markDone(id, AUDIT_TIMEOUT_MS));
    return result;
  }

  /**
   * The change failed without saying whether it happened (Redis failed or timed out, the seat lock was
   * lost): this request still owns the action, so it decides it now. APPLIED: the change did happen, and
   * `change` answers again for the same action id (the script replays it). CANCELLED: it never will.
   * If Redis cannot even be asked, the entry stays PENDING for a later audit read to decide.
   */
  private async afterFailure<T>(
    r: AuditRecord,
    action: StaffAction,
    failure: unknown,
    change: (actionId: string, action: StaffAction) => Promise<T>,
  ): Promise<T> {
    const { id } = action;
    let outcome;
    try {
      outcome = await this.staff.settleAction(r.eventId, id);
    } catch (e) {
      this.logger.warn(
        `${r.action} ${r.target}: outcome not known, audit entry ${id} left pending: ${String(e)}`,
      );
      throw failure;
    }
    if (outcome === 'CANCELLED') {
      await this.quietly(id, 'discard', () => this.log.discard(id, AUDIT_TIMEOUT_MS));
      throw failure;
    }
    await this.quietly(id, 'mark done', () => this.log.markDone(id, AUDIT_TIMEOUT_MS));
    try {
      return await change(action.id, action);
    } catch (e) {
      throw e instanceof ActionRefused ? e.refusal : e;
    }
  }

  /**
   * Decides the event's PENDING entries from Redis: DONE once their change is known to have been made;
   * those whose writers' time is up are decided for good (their change given up unless made: deleted).
   * The others may still be under way and stay PENDING (not shown). Throws if either store does not answer.
   */
  async settle(eventId: string): Promise<void> {
    const pending = await this.orUnavailable(() => this.log.pending(eventId, AUDIT_TIMEOUT_MS));
    for (const { id, due } of pending) {
      const outcome = due
        ? await this.staff.settleAction(eventId, id)
        : (await this.staff.actionApplied(eventId, id)) && 'APPLIED';
      if (outcome) {
        await this.record(id, outcome);
      }
    }
  }

  /**
   * Decides for good, at once, the event's PENDING entries with a prepared part on any of `seatIds`. Only
   * under these seats' lock, which the writers of those entries hold until they decide them: one still
   * PENDING has no writer left, and its part must not be taken for done by the action about to run.
   */
  private async settleSeats(eventId: string, seatIds: readonly string[]): Promise<void> {
    const ids = await this.orUnavailable(() =>
      this.log.pendingOnSeats(eventId, PREPARED_ACTIONS, seatIds, AUDIT_TIMEOUT_MS),
    );
    for (const id of ids) {
      await this.record(id, await this.staff.settleAction(eventId, id));
    }
  }

  /** A PENDING entry decided by Redis: DONE, or deleted with its prepared part. */
  private async record(id: string, outcome: StaffActionOutcome): Promise<void> {
    await this.orUnavailable(() =>
      outcome === 'APPLIED'
        ? this.log.markDone(id, AUDIT_TIMEOUT_MS)
        : this.log.discard(id, AUDIT_TIMEOUT_MS),
    );
    this.logger.log(`audit entry ${id} settled: ${outcome}`);
  }

  /** A page of the event's audit, oldest first, once its entries that can be decided are. */
  async page(eventId: string, limit: number, offset: number): Promise<[AuditEntryEntity[], number]> {
    await this.settle(eventId);
    return this.orUnavailable(() => this.log.page(eventId, limit, offset));
  }

  private async orUnavailable<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      this.logger.warn(`audit not readable: ${String(e)}`);
      throw auditUnavailable();
    }
  }

  /** A step whose failure leaves the entry PENDING, which a later audit read decides the same way. */
  private async quietly(id: string, step: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (e) {
      this.logger.warn(`audit entry ${id}: ${step} failed, left pending: ${String(e)}`);
    }
  }
}
