import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '@app/config';
import { settleWithin } from '../common/settle-within';
import { HoldStore } from '../hold-store';
import { OutboxRelayService } from '../outbox/outbox-relay.service';
import { ShardOwnership } from '../shards/shard-ownership.service';
import { seatsExpired, sweepDuration } from './expiry.metrics';
import { ShardWake } from './shard-wake';
import { StuckConfirms } from './stuck-confirms';

/** A sweep never runs away with Redis: at most this many batches per shard per tick. */
const MAX_BATCHES_PER_SHARD = 50;
/**
 * Shards swept at the same time. Each step waits for its Lua script and then for this process's event
 * loop (busy with the relay when much is due): one shard after another would leave a Cluster's other
 * masters idle and a single Redis waiting on round trips (bench:expiry measures a mass expiry). Four:
 * about one per master of that cluster, plus one to hide a round trip; more only queue scripts on a single
 * Redis, where every queued script delays the relay's and the API's commands. A shard is still swept by
 * one worker at a time, and each script stays one atomic step on one slot.
 */
export const SWEEP_CONCURRENCY = 4;
/**
 * Longest a shard goes without a sweep, whatever its wake entry says: forgetting ended holds and removing
 * old events are never brought forward by a wake-up (HoldStore.wakeFor lowers the entry for due holds only),
 * so they wait at most this long past their time.
 */
export const FULL_ROUND_MS = 5 * 60_000;
/**
 * How often the owned shards' due indexes are read for a due hold whose wake-up never came (its write
 * failed, or Redis lost the wake entry and kept the hold): one read per shard, so a missed wake-up costs
 * this much lateness at most.
 */
export const DUE_CHECK_MS = 5000;

/**
 * Every SWEEP_INTERVAL_MS, on every instance, for the shards it owns (ShardOwnership) that have work now
 * (ShardWake: one read of the wake index, not one per shard): frees the seats of
 * holds whose expireAt passed and records their SeatExpired events, forgets old holds and removes old
 * events (one Lua call per batch and shard, see hold-store/lua/sweep-shard.lua). A tick costs
 * O(due shards + what is due), never O(events); an idle service sends a few commands a second. Each swept
 * shard's wake entry is set to when it next has work, and the relay is told its stream may have records.
 * Shards just taken over are swept at once; every DUE_CHECK_MS the owned shards' due heads are read for a
 * wake-up that never came; a shard is swept at least every FULL_ROUND_MS. Ownership saves work and keeps
 * each shard's outbox in order; correctness of the frees comes from the script's own re-checks.
 * Sweeping touches Redis only: confirms found stuck past their deadline are recorded for the confirm
 * reconciler, which decides them from PostgreSQL on its own schedule, so a slow or locked PostgreSQL
 * never delays freeing the seats of other holds and events.
 */
@Injectable()
export class SweeperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Sweeper');
  private running = false;
  /** The tick in progress, so shutdown can let it finish before Redis and PostgreSQL close. */
  private current?: Promise<void>;
  private failing = false;
  /** Shards to sweep at the next tick whatever the wake index says (just taken over, or a sweep failed). */
  private readonly forced = new Set<number>();
  /** Redis time from which the due indexes are read again for missed wake-ups (DUE_CHECK_MS). */
  private nextDueCheckMs = 0;

  constructor(
    private readonly store: HoldStore,
    private readonly stuckConfirms: StuckConfirms,
    private readonly shards: ShardOwnership,
    private readonly wake: ShardWake,
    private readonly relay: OutboxRelayService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {
    shards.onTaken((taken) => taken.forEach((s) => this.forced.add(s)));
  }

  onApplicationBootstrap(): void {
    if (!this.config.expiry.sweeperEnabled) {
      this.logger.log('sweeper disabled (SWEEPER_ENABLED=false)');
      return;
    }
    const timer = setInterval(() => void this.tick(), this.config.expiry.sweepIntervalMs);
    this.scheduler.addInterval('hold-sweeper', timer);
  }

  /** Before any connection closes (onApplicationShutdown is too late): no new tick, the running one ends. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('interval', 'hold-sweeper')) {
      this.scheduler.deleteInterval('hold-sweeper');
    }
    await settleWithin(this.current, 10_000);
  }

  /** One tick; never overlaps itself in this process. Errors are logged once per outage, not per tick. */
  tick(): Promise<void> {
    if (this.running) {
      return Promise.resolve();
    }
    this.running = true;
    this.current = this.runTick();
    return this.current;
  }

  private async runTick(): Promise<void> {
    try {
      await this.sweepAll();
      if (this.failing) {
        this.logger.log('sweeping again');
        this.failing = false;
      }
    } catch (e) {
      if (!this.failing) {
        this.logger.error(`sweep failed, will retry every tick: ${(e as Error).message}`);
        this.failing = true;
      }
    } finally {
      this.running = false;
    }
  }

  /** The owned shards that have work now (and those forced or overdue). */
  private async dueShards(): Promise<{ nowMs: number; due: number[] }> {
    const owned = this.shards.ownedShards();
    if (owned.length === 0) {
      return { nowMs: 0, due: [] };
    }
    const { nowMs, due } = await this.wake.claimDue(owned, FULL_ROUND_MS);
    const all = new Set(due);
    for (const s of this.forced) {
      if (owned.includes(s)) {
        all.add(s);
      }
    }
    this.forced.clear();
    if (nowMs >= this.nextDueCheckMs) {
      this.nextDueCheckMs = nowMs + DUE_CHECK_MS;
      const rest = owned.filter((s) => !all.has(s));
      for (const s of await this.wake.overdue(rest, nowMs)) {
        all.add(s);
      }
    }
    return { nowMs, due: [...all].sort((a, b) => a - b) };
  }

  /** Sweeps the owned shards that have work (SWEEP_CONCURRENCY at a time); returns the seats freed. */
  async sweepAll(): Promise<number> {
    const end = sweepDuration.startTimer();
    let freed = 0;
    // one shard that fails (its master failing over, say) does not keep the others from being swept
    let failed = 0;
    let firstError: unknown;
    const { nowMs, due: queue } = await this.dueShards();
    const worker = async () => {
      for (let shard = queue.shift(); shard !== undefined; shard = queue.shift()) {
        const s = shard;
        try {
          // awaited before the sum is read: `freed += await …` would read freed before the wait, and the
          // workers running side by side would overwrite each other's counts (a tick would end with the
          // last idle shard's 0)
          const swept = await this.shards.onShard(s, (signal) => this.sweepShard(s, signal));
          if (swept) {
            freed += swept.freed;
            this.relay.recordsMayWait([s]); // also records a hold script wrote on a hold it found due
            await this.wake.swept(s, swept.more, nowMs + FULL_ROUND_MS);
          }
        } catch (e) {
          this.forced.add(s); // its wake entry was moved ahead by the claim: swept again next tick
          failed++;
          firstError ??= e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SWEEP_CONCURRENCY, queue.length) }, worker));
    end();
    if (failed > 0) {
      throw new Error(
        `${failed} shard(s) not swept: ${(firstError as Error)?.message ?? String(firstError)}`,
      );
    }
    if (freed > 0) {
      seatsExpired.inc(freed);
      this.logger.debug(`freed ${freed} expired seat(s)`);
    }
    return freed;
  }

  /**
   * Batches until nothing more is due (bounded), stopping if the shard's lease is lost. `more`: work was
   * left (the bound was reached).
   */
  private async sweepShard(shard: number, signal: AbortSignal): Promise<{ freed: number; more: boolean }> {
    let freed = 0;
    let more = false;
    for (let batch = 0; batch < MAX_BATCHES_PER_SHARD && !signal.aborted; batch++) {
      const r = await this.store.sweepShard(shard, this.config.expiry.sweepBatchSize);
      freed += r.expiredSeats;
      await this.stuckConfirms.add(r.stuckConfirming);
      if (r.removedEvents > 0) {
        this.logger.log({ msg: 'old events removed from Redis', shard, events: r.removedEvents });
      }
      more = r.more;
      if (!more) {
        break;
      }
    }
    return { freed, more };
  }
}
