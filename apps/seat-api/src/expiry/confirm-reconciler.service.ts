import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '@app/config';
import { DistributedLock } from '@app/distributed-lock';
import { settleWithin } from '../common/settle-within';
import { ConfirmSettlement } from '../holds/confirm/confirm-settlement';
import { HoldStore } from '../hold-store';
import { stuckConfirms } from './expiry.metrics';
import { StuckConfirms } from './stuck-confirms';

/** Name of the reconciler's interval in the SchedulerRegistry. */
export const RECONCILER_INTERVAL = 'confirm-reconciler';
/** Holds looked at per run, and how many at once (each holds a PostgreSQL connection while it waits). */
const BATCH = 100;
const CONCURRENCY = 4;
/**
 * What deciding one hold may wait for PostgreSQL: its marker insert waits on the stuck confirm's row
 * lock if that transaction is still open, or on a table lock. Past it, the hold is retried next run.
 */
export const PER_HOLD_TIMEOUT_MS = 5000;

/**
 * Decides confirms that stopped half-way (PostgreSQL failed or timed out and even the marker could not
 * be written, or the process died before or after COMMIT), once their deadline passed: see
 * ConfirmSettlement for the rule. The sweeper only records such holds (StuckConfirms, in Redis); this
 * job runs on its own interval (SWEEP_INTERVAL_MS, on when SWEEPER_ENABLED), under its own lock (one
 * instance at a time, the others skip), with a bounded wait per hold, and one hold failing does not stop
 * the others. So a confirm stuck behind a PostgreSQL lock delays nothing but itself: sweeping never
 * waits on PostgreSQL.
 */
@Injectable()
export class ConfirmReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ConfirmReconciler');
  private running = false;
  /** The run in progress, so shutdown can let it finish before Redis and PostgreSQL close. */
  private current?: Promise<void>;
  /** Holds whose failure was logged: one line when a hold starts failing, one when it is decided. */
  private readonly failing = new Set<string>();

  constructor(
    private readonly store: HoldStore,
    private readonly settlement: ConfirmSettlement,
    private readonly stuck: StuckConfirms,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.expiry.sweeperEnabled) {
      return;
    }
    const timer = setInterval(() => void this.tick(), this.config.expiry.sweepIntervalMs);
    this.scheduler.addInterval(RECONCILER_INTERVAL, timer);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('interval', RECONCILER_INTERVAL)) {
      this.scheduler.deleteInterval(RECONCILER_INTERVAL);
    }
    await settleWithin(this.current, 10_000);
  }

  /** One run; never overlaps itself in this process. */
  tick(): Promise<void> {
    if (this.running) {
      return Promise.resolve();
    }
    this.running = true;
    // the usual case, nothing stuck: one read, no lock taken
    this.current = this.stuck
      .count()
      .then((n) => (n > 0 ? this.reconcileStuck() : 0))
      .then(() => undefined)
      .catch((e: unknown) => this.logger.warn(`run failed, retried next tick: ${String(e)}`))
      .finally(() => {
        this.running = false;
      });
    return this.current;
  }

  /** Decides what it can of the recorded stuck confirms; returns how many it decided. */
  @DistributedLock({ key: () => 'confirm-reconciler', onContention: 'skip' })
  async reconcileStuck(): Promise<number> {
    const holdIds = await this.stuck.sample(BATCH);
    let decided = 0;
    for (let i = 0; i < holdIds.length; i += CONCURRENCY) {
      const done = await Promise.all(holdIds.slice(i, i + CONCURRENCY).map((id) => this.reconcileOne(id)));
      decided += done.filter(Boolean).length;
    }
    return decided;
  }

  /** Never throws: a hold that cannot be decided now stays recorded and is retried next run. */
  private async reconcileOne(holdId: string): Promise<boolean> {
    try {
      const hold = await this.store.getHold(holdId);
      if (!hold || hold.status !== 'CONFIRMING') {
        await this.stuck.remove(holdId); // decided meanwhile (by a call on the hold, or another instance)
        this.failing.delete(holdId);
        return false;
      }
      // no seat lock: only holds past their deadline are given up (a live confirm is bounded by it)
      const { hold: after, booking } = await this.settlement.settle(hold, {
        seatLockHeld: false,
        timeoutMs: PER_HOLD_TIMEOUT_MS,
      });
      // done with this report; a hold still CONFIRMING is a newer, live attempt (reported again if it sticks)
      await this.stuck.remove(holdId);
      this.failing.delete(holdId);
      if (after.status === 'CONFIRMING') {
        return false;
      }
      stuckConfirms.inc({ outcome: booking ? 'finished' : 'abandoned' });
      this.logger.warn(
        booking
          ? `hold ${holdId}: confirm had committed in PostgreSQL; seats marked BOOKED`
          : `hold ${holdId}: confirm never committed; attempt given up, hold ${after.status}`,
      );
      return true;
    } catch (e) {
      stuckConfirms.inc({ outcome: 'failed' });
      if (!this.failing.has(holdId)) {
        if (this.failing.size >= 10_000) {
          this.failing.clear(); // bounded: at worst some holds are logged twice
        }
        this.failing.add(holdId);
        this.logger.warn(`hold ${holdId}: confirm not decided yet, retried next run: ${String(e)}`);
      }
      return false;
    }
  }
}
