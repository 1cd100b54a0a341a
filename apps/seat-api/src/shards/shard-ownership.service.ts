import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { REDIS_CLIENT } from '@app/redis';
import { settleWithin } from '../common/settle-within';
import { HoldStore } from '../hold-store';
import { Membership } from './membership';
import { ShardLeases } from './shard-leases';

/** Name of the rebalancing interval in the SchedulerRegistry. */
export const SHARD_INTERVAL = 'hold-shard-ownership';
/** Shards an instance may own above its fair share: room for uneven starts without constant moves. */
export const SHARD_SLACK = 1;
/**
 * Share of the lease after the last renewal was sent by which this instance stops working on its shards
 * when it could not renew: the lease runs in Redis time from a moment after the send, so stopping a bit
 * before this process's own count of it ends keeps one owner per shard although clocks run at their rates.
 */
const LEASE_SAFETY = 0.9;

interface OwnedShard {
  /** Aborted when the lease is lost: the shard's work stops between steps. */
  controller: AbortController;
  /** Work running on the shard: a release waits for it before the lease goes to another instance. */
  work: Set<Promise<unknown>>;
}

/**
 * Which shards of the hold store this instance sweeps and relays: each shard has one owner at a time, by
 * a lease (HOLD_SHARD_LEASE_MS) in one Redis hash for the whole deployment (ShardLeases). Every rebalance
 * (a quarter of the lease) renews all of this instance's leases and takes free shards in one script
 * call, so the cost does not grow with the shards owned. If this instance cannot renew, it stops working
 * on its shards before their leases run out (LEASE_SAFETY); if it dies, its leases run out and another
 * instance takes the shards at its next rebalance; a lease another instance took (after it ran out) is
 * lost here: its AbortSignal stops the shard's work.
 *
 * Fair share: every rebalance beats into the membership set and counts the live instances L; an instance
 * keeps at most ceil(N / L) + SHARD_SLACK shards, releases the extras (so a newcomer gets some) and takes
 * free ones while under that. The quotas add up to at least N, so every shard has an owner once the
 * leases of the dead have run out. One owner per shard is what keeps one event's seat changes in order
 * on Kafka: its records sit in one stream, read by one relay. Instances with SWEEPER_ENABLED=false
 * take no part.
 */
@Injectable()
export class ShardOwnership implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('HoldShards');
  readonly instanceId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly owned = new Map<number, OwnedShard>();
  private readonly membership: Membership;
  private readonly leases: ShardLeases;
  private readonly leaseMs: number;
  private readonly takenListeners: ((shards: number[]) => void)[] = [];
  private running?: Promise<void>;
  private stopped = false;
  private failing = false;
  /** Stops the work on every shard when the leases could not be renewed in time. */
  private leaseTimer?: NodeJS.Timeout;

  constructor(
    private readonly store: HoldStore,
    @Inject(REDIS_CLIENT) redis: Redis,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {
    this.leaseMs = config.holds.shardLeaseMs;
    // silent for half a lease: gone (a live instance beats every quarter); its leases end within one
    this.membership = new Membership(redis, this.instanceId, Math.round(this.leaseMs / 2));
    this.leases = new ShardLeases(redis, this.instanceId, this.leaseMs);
  }

  onApplicationBootstrap(): void {
    if (!this.config.expiry.sweeperEnabled) {
      return;
    }
    const timer = setInterval(() => void this.rebalance(), Math.max(100, Math.round(this.leaseMs / 4)));
    this.scheduler.addInterval(SHARD_INTERVAL, timer);
    void this.rebalance();
  }

  /** Before connections close: no new rebalance, every shard released (after its running work) for others. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.scheduler.doesExist('interval', SHARD_INTERVAL)) {
      this.scheduler.deleteInterval(SHARD_INTERVAL);
    }
    await settleWithin(this.running, 5000);
    await settleWithin(this.releaseAll(), 10_000);
    clearTimeout(this.leaseTimer);
    await settleWithin(
      this.membership.leave().catch(() => undefined),
      1000,
    );
  }

  /** The shards this instance owns now, ascending. */
  ownedShards(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  /** Calls `listener` with the shards this instance has just taken (their work may be waiting: do it now). */
  onTaken(listener: (shards: number[]) => void): void {
    this.takenListeners.push(listener);
  }

  /**
   * Runs `work` on a shard this instance owns, with the lease's signal (aborted if the lease is lost:
   * stop between steps). Resolves undefined without running it when the shard is not ours.
   */
  async onShard<T>(shard: number, work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const o = this.owned.get(shard);
    if (!o || o.controller.signal.aborted) {
      return undefined;
    }
    const p = work(o.controller.signal);
    o.work.add(p);
    try {
      return await p;
    } finally {
      o.work.delete(p);
    }
  }

  /** One rebalance; never overlaps itself, never throws (logged once per outage). */
  rebalance(): Promise<void> {
    if (!this.running && !this.stopped) {
      this.running = this.rebalanceOnce()
        .then(() => {
          if (this.failing) {
            this.logger.log('shard ownership working again');
          }
          this.failing = false;
        })
        .catch((e: unknown) => {
          if (!this.failing) {
            this.logger.warn(`shard rebalance failed, retried every ${this.leaseMs / 4} ms: ${String(e)}`);
          }
          this.failing = true;
        })
        .finally(() => (this.running = undefined));
    }
    return this.running ?? Promise.resolve();
  }

  /** Releases every shard this instance owns, each after its running work (tests: a graceful hand-over). */
  releaseAll(): Promise<void> {
    return this.letGo(this.ownedShards());
  }

  private async rebalanceOnce(): Promise<void> {
    const shards = this.store.layout.shards;
    const live = Math.max(1, await this.membership.beat());
    const quota = Math.min(shards, Math.ceil(shards / live) + SHARD_SLACK);
    const mine = this.ownedShards();
    // the highest-numbered go: any choice works, a fixed one moves fewer shards back and forth
    await this.letGo(mine.slice(quota));
    const keep = mine.slice(0, quota);
    const sentAt = performance.now();
    const { renewed, taken } = await this.leases.renewAndTake(keep, quota - keep.length, shards);
    const still = new Set(renewed);
    for (const shard of keep) {
      if (!still.has(shard)) {
        this.lose(shard);
      }
    }
    // counted from the send: the leases' Redis time started a moment after it
    clearTimeout(this.leaseTimer);
    this.leaseTimer = setTimeout(
      () => this.loseAll(),
      Math.max(0, sentAt + this.leaseMs * LEASE_SAFETY - performance.now()),
    ).unref();
    if (this.stopped) {
      await this.leases.release(taken); // shutting down: nothing new is worked on
      return;
    }
    for (const shard of taken) {
      this.owned.set(shard, { controller: new AbortController(), work: new Set() });
    }
    if (taken.length > 0) {
      for (const listener of this.takenListeners) {
        listener(taken);
      }
    }
  }

  /** Gives these shards back: no new work on them, the running work ends, then the leases go. */
  private async letGo(shards: number[]): Promise<void> {
    const entries = shards.flatMap((shard) => {
      const o = this.owned.get(shard);
      this.owned.delete(shard);
      return o ? [o] : [];
    });
    if (entries.length === 0) {
      return;
    }
    // the step under way ends before the lease is given back, so on a release two owners never work on
    // one shard. A lease LOST mid-step is another matter: a batch already on its way to Kafka may be sent
    // again by the next owner (consumers drop the duplicate by CloudEvent id; the relay checks the signal
    // before each publish to keep that window to one batch).
    await Promise.allSettled(entries.flatMap((o) => [...o.work]));
    await this.leases.release(shards);
  }

  /** The shard's lease is another instance's now: its work stops between steps. */
  private lose(shard: number): void {
    const o = this.owned.get(shard);
    if (!o) {
      return;
    }
    this.owned.delete(shard);
    o.controller.abort();
    if (!this.stopped) {
      this.logger.warn({ msg: 'shard lease lost: another instance takes it over', shard });
    }
  }

  /** No renewal in time (Redis unreachable): every lease may run out now, so no shard is worked on. */
  private loseAll(): void {
    for (const shard of this.ownedShards()) {
      this.lose(shard);
    }
  }
}
