import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { LRUCache } from 'lru-cache';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import { AccessibleSeatsForAll, EventEntity, OrphanRule, SalesState } from '@app/database';
import { meteredLru } from '../../common/cache/metered-lru';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import { EventAdminStore } from '../../hold-store';
import { EventRepair } from '../event-repair';
import {
  deploymentLimits,
  EventPolicy,
  HOLD_LIMIT_COLUMNS,
  HOLD_LIMIT_NAMES,
  HoldLimits,
  limitConflicts,
  OwnHoldLimits,
  policyOf,
} from './event-policy';

/** Events whose policy one instance keeps (a few hundred bytes each). */
const MAX_CACHED_POLICIES = 10_000;
const POLICY_BYTES = 512;

/** An own limit: a number sets it, null gives the event the deployment's value again. */
export type LimitChanges = { [K in keyof OwnHoldLimits]?: number | null };

/** The event's seat rules, each set to one of its values. */
export interface RuleChanges {
  orphanRule?: OrphanRule;
  accessibleSeatsForAll?: AccessibleSeatsForAll;
}

const RULE_NAMES = ['orphanRule', 'accessibleSeatsForAll'] as const;

export const eventNotFound = (eventId: string) =>
  new DomainError(ErrorCode.EVENT_NOT_FOUND, `Event ${eventId} does not exist`);
export const eventCancelled = (eventId: string) =>
  new DomainError(ErrorCode.EVENT_CANCELLED, `Event ${eventId} is cancelled`);
export const salesClosed = (eventId: string) =>
  new DomainError(ErrorCode.SALES_CLOSED, `Sales of event ${eventId} are closed`);

/**
 * Each event's settings (sales state, hold limits, seat rules) as the hold path needs them: read from PostgreSQL
 * once per instance, then kept (bounded LRU). Kept copies are never trusted blindly: the hold store makes a
 * hold only under the policy version its caller checked it against (`pv` in the event's meta hash, atomic
 * with the hold), and an admin change raises that version in Redis before it commits. So a change made on
 * any instance reaches every other one with the next hold there, which is refused POLICY_CHANGED and
 * retried under the reloaded policy; a refusal decided from a kept copy (sales closed, too many seats) is
 * first checked against Redis's version (confirmed()), so a reopened sale is not refused from a stale copy.
 *
 * Writers of the version are serialised by the event's row: a change holds it FOR UPDATE, a reload FOR
 * SHARE (so a reload never reads the version a change in flight is about to replace).
 */
@Injectable()
export class EventPolicyService {
  private readonly logger = new Logger('EventPolicy');
  private readonly cache: LRUCache<string, EventPolicy>;
  private readonly loading = new Map<string, Promise<EventPolicy | null>>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly store: EventAdminStore,
    private readonly config: AppConfig,
    private readonly repairs: EventRepair,
  ) {
    this.cache = meteredLru({
      name: 'event_policies',
      maxBytes: MAX_CACHED_POLICIES * POLICY_BYTES,
      maxEntries: MAX_CACHED_POLICIES,
    });
  }

  /** The event's policy for a new hold (kept copy, else loaded); null when the event does not exist. */
  async forHold(eventId: string): Promise<EventPolicy | null> {
    return this.cache.get(eventId) ?? this.reload(eventId);
  }

  /**
   * `policy` if Redis still holds its version, else the event's policy reloaded: call before refusing a
   * hold on a kept copy's word. One Redis read, on refusals only.
   */
  async confirmed(policy: EventPolicy): Promise<EventPolicy> {
    if ((await this.store.policyVersion(policy.eventId)) === policy.version) {
      return policy;
    }
    return (await this.reload(policy.eventId)) ?? policy;
  }

  /**
   * Reads the event's policy from PostgreSQL (waiting for a change in flight: FOR SHARE) and puts its
   * version in Redis, where holds are checked against it. Concurrent reloads of one event share one.
   */
  reload(eventId: string): Promise<EventPolicy | null> {
    let pending = this.loading.get(eventId);
    if (!pending) {
      pending = this.load(eventId).finally(() => this.loading.delete(eventId));
      this.loading.set(eventId, pending);
    }
    return pending;
  }

  private async load(eventId: string): Promise<EventPolicy | null> {
    const policy = await this.db.transaction(async (tx) => {
      const event = await this.lockedEvent(tx, eventId, 'pessimistic_read');
      if (!event) {
        return null;
      }
      const found = policyOf(event, this.config);
      await this.mirror(found, event.startsAt);
      return found;
    });
    if (policy) {
      this.cache.set(eventId, policy, { size: POLICY_BYTES });
    } else {
      this.cache.delete(eventId);
    }
    return policy;
  }

  /**
   * Redis gets the committed version (run under the row's share lock). A higher one there is a change
   * that never committed (its undo failed too): dropped, only if it is still that one. Past its
   * retention the event's keys may be gone and nothing would delete a new one: nothing is written (its
   * holds are refused EVENT_ENDED before any policy is checked).
   */
  private async mirror(policy: EventPolicy, startsAt: Date): Promise<void> {
    if (Date.now() >= policy.retainUntilMs) {
      return;
    }
    const stored = await this.raise(policy.eventId, policy.version, policy.orphanRule, startsAt);
    if (stored > policy.version) {
      this.logger.warn(
        `event ${policy.eventId}: policy version ${stored} in Redis never committed; replaced`,
      );
      await this.store.dropPolicyVersion(policy.eventId, stored);
      await this.raise(policy.eventId, policy.version, policy.orphanRule, startsAt);
    }
  }

  /**
   * Raises the event's version in Redis (EventAdminStore.raisePolicyVersion). Where Redis has none (the
   * event is new to it, or it lost its data) the event's booked and blocked seats are put back from
   * PostgreSQL first (EventRepair): holds pass only once the version is there, so none sees them missing.
   */
  private async raise(
    eventId: string,
    version: number,
    orphanRule: OrphanRule,
    startsAt: Date,
  ): Promise<number> {
    const stored = await this.store.raisePolicyVersion(eventId, version, orphanRule);
    if (stored !== 'UNREPAIRED') {
      return stored;
    }
    this.logger.log(
      `event ${eventId}: no policy version in Redis; its booked and blocked seats are restored first`,
    );
    await this.repairs.repair(eventId, startsAt);
    return (await this.store.raisePolicyVersion(eventId, version, orphanRule, true)) as number;
  }

  /**
   * Sets or clears the event's own limits and sets its seat rules; the result must leave the event's
   * limits usable (400).
   */
  changeSettings(eventId: string, changes: LimitChanges & RuleChanges): Promise<EventPolicy> {
    const names = HOLD_LIMIT_NAMES.filter((n) => changes[n] !== undefined);
    const rules = RULE_NAMES.filter((n) => changes[n] !== undefined);
    if (names.length === 0 && rules.length === 0) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'Nothing to change', {
        details: [
          {
            field: 'body',
            message: `give at least one of ${[...HOLD_LIMIT_NAMES, ...RULE_NAMES].join(', ')}`,
          },
        ],
      });
    }
    return this.change(eventId, (event) => {
      for (const name of names) {
        (event as unknown as Record<string, number | null>)[HOLD_LIMIT_COLUMNS[name]] = changes[name] ?? null;
      }
      event.orphanRule = changes.orphanRule ?? event.orphanRule;
      event.accessibleSeatsForAll = changes.accessibleSeatsForAll ?? event.accessibleSeatsForAll;
      this.refuseConflicts(policyOf(event, this.config).limits, '');
      return true;
    });
  }

  /** Refuses (400) limits for a new event that would not work with the deployment's others. */
  assertUsable(settings: LimitChanges | undefined): void {
    const own: OwnHoldLimits = {};
    for (const name of HOLD_LIMIT_NAMES) {
      const value = settings?.[name];
      if (typeof value === 'number') {
        own[name] = value;
      }
    }
    this.refuseConflicts({ ...deploymentLimits(this.config), ...own }, 'settings.');
  }

  /** `prefix`: where the limits are in the request body. */
  private refuseConflicts(limits: HoldLimits, prefix: string): void {
    const conflicts = limitConflicts(limits, this.config.holds.minTtlSeconds);
    if (conflicts.length > 0) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'These limits do not work together', {
        details: conflicts.map(({ field, message }) => ({ field: `${prefix}${field}`, message })),
      });
    }
  }

  /** Opens or closes sales (409 EVENT_CANCELLED once cancelled); the same state again changes nothing. */
  setSales(eventId: string, sales: Exclude<SalesState, 'CANCELLED'>): Promise<EventPolicy> {
    return this.change(eventId, (event) => {
      if (event.sales === sales) {
        return false;
      }
      event.sales = sales;
      return true;
    });
  }

  /** Cancels the event for good: no hold is made after this answers. Cancelling it again changes nothing. */
  cancel(eventId: string): Promise<EventPolicy> {
    return this.change(
      eventId,
      (event) => {
        if (event.sales === 'CANCELLED') {
          return false;
        }
        event.sales = 'CANCELLED';
        return true;
      },
      true,
    );
  }

  /**
   * Makes a new version of the show's price list current, in one change of its policy (change()):
   * `write` inserts version `next`'s rows in the change's transaction (its audit entry with them). Holds
   * made after this answers, on every instance, are priced under it.
   */
  setPriceList(
    eventId: string,
    write: (tx: EntityManager, next: number) => Promise<void>,
  ): Promise<EventPolicy> {
    return this.change(eventId, async (event, tx) => {
      const next = (event.priceListVersion ?? 0) + 1;
      await write(tx, next);
      event.priceListVersion = next;
      return true;
    });
  }

  /**
   * One change of an event's settings, all or nothing: the row locked FOR UPDATE, the change applied and
   * validated, the version raised in PostgreSQL and then in Redis, then the commit. Redis failing rolls
   * the change back (503, nothing changed); a commit failing after Redis took the version drops it there
   * again (and were that lost too, the next reload finds it uncommitted and replaces it). `apply` answers
   * whether anything changed: if not, nothing is written and the policy is answered as it is. It may
   * write rows of its own in the change's transaction (`tx`).
   */
  private async change(
    eventId: string,
    apply: (event: EventEntity, tx: EntityManager) => boolean | Promise<boolean>,
    cancelling = false,
  ): Promise<EventPolicy> {
    let raised: number | null = null;
    try {
      const policy = await this.db.transaction(async (tx) => {
        const event = await this.lockedEvent(tx, eventId, 'pessimistic_write');
        if (!event) {
          throw eventNotFound(eventId);
        }
        if (event.sales === 'CANCELLED' && !cancelling) {
          throw eventCancelled(eventId);
        }
        if (!(await apply(event, tx))) {
          return policyOf(event, this.config);
        }
        const current = policyOf(event, this.config);
        if (Date.now() >= current.retainUntilMs) {
          throw new DomainError(
            ErrorCode.EVENT_ENDED,
            `Event ${eventId} is over: its settings no longer change`,
          );
        }
        // above whatever Redis has too: a leftover of a change that never committed is left behind
        const inRedis = (await this.store.policyVersion(eventId)) ?? 0;
        event.policyVersion = Math.max(event.policyVersion, inRedis) + 1;
        const columns: Partial<EventEntity> = {
          sales: event.sales,
          policyVersion: event.policyVersion,
          orphanRule: event.orphanRule,
          accessibleSeatsForAll: event.accessibleSeatsForAll,
          priceListVersion: event.priceListVersion,
        };
        for (const name of HOLD_LIMIT_NAMES) {
          const column = HOLD_LIMIT_COLUMNS[name];
          (columns as Record<string, unknown>)[column] = event[column];
        }
        await tx.update(EventEntity, { id: eventId }, columns);
        raised = event.policyVersion;
        // the orphan rule with it, in one step: holds by seat ids read it in Redis (create-hold.lua)
        const stored = await this.raise(eventId, event.policyVersion, event.orphanRule, event.startsAt);
        if (stored !== event.policyVersion) {
          throw new Error(`policy version ${event.policyVersion} not stored in Redis (it has ${stored})`);
        }
        return policyOf(event, this.config);
      });
      this.cache.set(eventId, policy, { size: POLICY_BYTES });
      return policy;
    } catch (e) {
      if (raised !== null && !(e instanceof DomainError)) {
        // the transaction did not commit, or its outcome is unknown: Redis must not keep a version
        // PostgreSQL may not have (a hold checked against it reloads; see mirror())
        this.cache.delete(eventId);
        await this.store.dropPolicyVersion(eventId, raised).catch(() => undefined);
      }
      throw e;
    }
  }

  private lockedEvent(
    tx: EntityManager,
    eventId: string,
    mode: 'pessimistic_read' | 'pessimistic_write',
  ): Promise<EventEntity | null> {
    return tx.getRepository(EventEntity).findOne({ where: { id: eventId }, lock: { mode } });
  }
}
