import Redis from 'ioredis';
import { HoldIds } from './hold-ids';
import { HoldLayout, WAKE_KEY } from './hold-keys';
import { HoldScripts } from './hold-scripts';
import { SweepResult } from './hold.types';

/** How long a CONFIRMING hold past its deadline waits before the sweeper reports it again. */
const STUCK_RECHECK_MS = 5000;
/** Old events whose keys one sweep step deletes at most (each UNLINK is freed off the main thread). */
const MAX_EVENTS_REMOVED_PER_STEP = 20;
/** An event past its retention that still has a live hold is looked at again when that hold is due, at least this much later. */
const EVENT_RECHECK_MS = 1000;

/**
 * The hold store's clean-up, shard by shard: due holds expired, ended holds forgotten, and events entered
 * with their retention, whose keys the shard's sweep deletes once it is past (leaving a tombstone).
 * HoldStore's sweepShard, registerEvent and eventRemoved are these.
 */
export class ShardSweep {
  constructor(
    private readonly redis: Redis,
    private readonly layout: HoldLayout,
    private readonly scripts: HoldScripts,
    private readonly eventRetentionMs: number,
  ) {}

  /**
   * One bounded sweep step for one shard (see lua/sweep-shard.lua): due holds of its events expired, ended
   * holds past retention forgotten, events past their retention with no live hold removed.
   */
  async step(shard: number, batchSize: number): Promise<SweepResult> {
    const r = (await this.scripts.sweepShard(shard, {
      batchSize,
      stuckRecheckMs: STUCK_RECHECK_MS,
      maxRemovedEvents: MAX_EVENTS_REMOVED_PER_STEP,
      eventRecheckMs: EVENT_RECHECK_MS,
    })) as (number | string)[];
    return {
      expiredHolds: Number(r[0]),
      expiredSeats: Number(r[1]),
      forgottenHolds: Number(r[2]),
      removedEvents: Number(r[3]),
      more: Number(r[4]) === 1,
      stuckConfirming: r.slice(5).map(String),
    };
  }

  /**
   * Enters the event in its shard's events index with retain-until = start + HOLD_EVENT_RETENTION_SECONDS:
   * past it, once no hold is live or kept, the shard's sweep removes the event's keys. Idempotent.
   */
  async registerEvent(eventId: string, startsAt: Date): Promise<void> {
    HoldIds.prefixOf(eventId);
    const until = startsAt.getTime() + this.eventRetentionMs;
    const shard = this.layout.shardOf(eventId);
    await this.redis.zadd(this.layout.shardKeys(shard).events, until, eventId);
    // its removal is work of the shard's sweep, due then (hold-keys.ts, WAKE_KEY)
    await this.redis.zadd(WAKE_KEY, 'LT', until, shard);
  }

  /**
   * Whether the shard's sweep deleted the event's keys (its tombstone, lua/event-retention.lua): what they
   * held is gone from Redis, so nothing read from them (a seat map) may be shown as the event's state.
   */
  async eventRemoved(eventId: string): Promise<boolean> {
    const ended = this.layout.shardKeys(this.layout.shardOf(eventId)).ended;
    return (await this.redis.zscore(ended, eventId)) !== null;
  }
}
