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
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { currentLock, DistributedLock } from '@app/distributed-lock';
import { REDIS_CLIENT } from '@app/redis';
import { HoldStore } from '../../hold-store';
import { settleWithin } from '../settle-within';
import { Membership } from './membership';

/** Name of the rebalancing interval in the SchedulerRegistry. */
export const SHARD_INTERVAL = 'hold-shard-ownership';
/** Shards an instance may own above its fair share: room for uneven starts without constant moves. */
export const SHARD_SLACK = 1;

interface OwnedShard {
  signal: AbortSignal;
  release: () => void;
  /** Work running on the shard: a release waits for it before the lease goes to another instance. */
  work: Set<Promise<unknown>>;
}

/**
 * Which shards of the hold store this instance sweeps and relays: each shard has one owner at a time,
 * by a lease taken with @DistributedLock in watchdog mode (HOLD_SHARD_LEASE_MS, renewed while this
 * process lives; if it dies, the lease runs out and another instance takes the shard at its next
 * rebalance; if the lease is lost, the lock's AbortSignal stops the shard's work).
 *
 * Fair share: every rebalance (a quarter of the lease) beats into the membership set and counts the live
 * instances L; an instance keeps at most ceil(N / L) + SHARD_SLACK shards, releases the extras (so a
 * newcomer gets some) and tries free ones while under that. The quotas add up to at least N, so every
 * shard has an owner once the leases of the dead have run out. One owner per shard is what keeps one
 * event's SeatExpired messages in order on Kafka: its records sit in one stream, read by one relay.
 * Instances with SWEEPER_ENABLED=false take no part.
 */
@Injectable()
export class ShardOwnership implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('HoldShards');
  readonly instanceId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly owned = new Map<number, OwnedShard>();
  private readonly acquiring = new Map<number, (ok: boolean) => void>();
  private readonly membership: Membership;
  private readonly leaseMs: number;
  private running?: Promise<void>;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly store: HoldStore,
    @Inject(REDIS_CLIENT) redis: Redis,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {
    this.leaseMs = config.holds.shardLeaseMs;
    // silent for half a lease: gone (a live instance beats every quarter); its leases end within one
    this.membership = new Membership(redis, this.instanceId, Math.round(this.leaseMs / 2));
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
    await settleWithin(
      this.membership.leave().catch(() => undefined),
      1000,
    );
  }

  /** The shards this instance owns now, ascending. */
  ownedShards(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  /**
   * Runs `work` on a shard this instance owns, with the lease's signal (aborted if the lease is lost:
   * stop between steps). Resolves undefined without running it when the shard is not ours.
   */
  async onShard<T>(shard: number, work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const o = this.owned.get(shard);
    if (!o || o.signal.aborted) {
      return undefined;
    }
    const p = work(o.signal);
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

  /** Releases every shard this instance owns (tests: a graceful hand-over). */
  async releaseAll(): Promise<void> {
    const entries = [...this.owned.values()];
    for (const o of entries) {
      o.release();
    }
    await Promise.allSettled(entries.flatMap((o) => [...o.work]));
  }

  private async rebalanceOnce(): Promise<void> {
    const shards = this.store.layout.shards;
    const live = Math.max(1, await this.membership.beat());
    const quota = Math.min(shards, Math.ceil(shards / live) + SHARD_SLACK);
    const mine = this.ownedShards();
    if (mine.length > quota) {
      // the highest-numbered go: any choice works, a fixed one moves fewer shards back and forth
      for (const shard of mine.slice(quota)) {
        this.owned.get(shard)?.release();
      }
      return;
    }
    // free shards, from a random start so that instances starting together do not collide on each one
    const start = Math.floor(Math.random() * shards);
    for (let i = 0; i < shards && this.owned.size < quota && !this.stopped; i++) {
      const shard = (start + i) % shards;
      if (!this.owned.has(shard) && !this.acquiring.has(shard)) {
        await this.take(shard);
      }
    }
  }

  /** True once this instance holds the shard's lease; false when another instance has it. */
  private take(shard: number): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.acquiring.set(shard, resolve);
      this.holdShard(shard).then(
        (held) => {
          this.acquiring.delete(shard);
          if (held === undefined) {
            resolve(false); // skipped: someone else holds it
          }
        },
        (e: unknown) => {
          const stillWaiting = this.acquiring.delete(shard);
          if (!stillWaiting) {
            // the shard was taken (resolved true) and its work failed later: not lost, logged here
            this.logger.warn({ msg: 'shard work ended with an error', shard, error: String(e) });
          }
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  /**
   * Holds the shard's lease for as long as this instance owns the shard: until released (fair share,
   * shutdown) or lost (the watchdog could not renew it). Skipped (undefined) when another instance has it.
   */
  @DistributedLock({ key: (shard: number) => `hold-shard:${shard}`, onContention: 'skip' })
  async holdShard(shard: number): Promise<true> {
    const lock = currentLock();
    let release!: () => void;
    const over = new Promise<void>((resolve) => (release = resolve));
    const entry: OwnedShard = { signal: lock.signal, release, work: new Set() };
    lock.signal.addEventListener('abort', () => release(), { once: true });
    this.owned.set(shard, entry);
    this.acquiring.get(shard)?.(true);
    await over;
    if (this.owned.get(shard) === entry) {
      this.owned.delete(shard);
    }
    // the step under way ends before the lease is given back, so on a release two owners never work on one
    // shard. A lease LOST mid-step is another matter: a batch already on its way to Kafka may be sent again by
    // the next owner (consumers drop the duplicate by CloudEvent id; the relay checks the signal before each
    // publish to keep that window to one batch).
    await Promise.allSettled([...entry.work]);
    if (lock.signal.aborted && !this.stopped) {
      this.logger.warn({ msg: 'shard lease lost: another instance takes it over', shard });
    }
    return true;
  }
}
