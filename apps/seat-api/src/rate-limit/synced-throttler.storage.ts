import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Cluster } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { keySlot, LuaScript, REDIS_CLIENT, RedisClient } from '@app/redis';
import { counter, gauge } from '@app/observability';

/** How often an instance adds its new hits to Redis and learns the other instances' totals. */
export const SYNC_INTERVAL_MS = 100;
/** Callers tracked at once per instance; past it the least recently seen one is forgotten. */
const MAX_TRACKED = 50_000;
/** Counters per script call at most: bounds how long one sync keeps Redis busy (a few ms at this size). */
const MAX_KEYS_PER_CALL = 1000;
/**
 * Hash tags the counters are spread over (`rl:{rl<n>}:{<limit>:<route>-<caller>}:<window index>`): on a
 * Cluster a script call carries only counters of one slot, so a sync makes at most this many calls (spread
 * over the masters) whatever the number of callers. One tag per caller would make one call per caller seen
 * in the interval, each sent on its own: close to one more script call per hold when most holds come from
 * different users.
 */
const COUNTER_GROUPS = 16;

/**
 * The sync (synced-counter.lua): adds each counter's hits and answers the totals. `counters`: of one slot;
 * `hitsAndOutlive`: per counter, in that order, the hits to add and the ms it must outlive its window by.
 * Its key count is passed per call (routed by its first counter on a Cluster).
 */
export const SYNC_SCRIPT = new LuaScript(__dirname, {
  file: 'synced-counter.lua',
  keys: ['counters...'],
  argv: ['hitsAndOutlive...'],
} as const);

const tracked = gauge('rate_limit_tracked_callers', 'Caller windows this instance keeps in memory');
const refused = counter('rate_limit_refused_total', 'Requests refused with 429, by limit', ['limit']);
const syncFailures = counter('rate_limit_sync_failures_total', 'Syncs of hit counts to Redis that failed');

interface Window {
  id: string;
  /** Which fixed window (now / ttl): a new window starts a new count. */
  index: number;
  endsAtMs: number;
  ttlMs: number;
  redisKey: string;
  /** Cluster hash slot of the counter (prefix included); 0 on a single Redis. */
  slot: number;
  /** Total over every instance as Redis last answered it (our synced hits included). */
  known: number;
  /** Our hits not yet sent, and those being sent right now. */
  unsynced: number;
  inFlight: number;
}

/** What ThrottlerStorage.increment resolves to (the library does not export the type by name). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The hit counts behind @nestjs/throttler, shared by every instance through Redis without a Redis round
 * trip per request (a hold's own round trip is all its budget). Each instance decides from
 * what it knows: the shared total as of its last sync plus its own hits since. Every SYNC_INTERVAL_MS it
 * adds its new hits to the shared counters and learns the totals: one script call per interval for all
 * callers (one per counter group's hash slot on a Cluster). On one instance the limit is exact; a caller spread over several instances can get past it by
 * what each instance lets through before its next sync shows it the others' hits (one interval's worth). If Redis does not answer, each
 * instance keeps limiting on its own counts and sends them when Redis is back.
 *
 * Windows are fixed (now / ttl): a caller over the limit is refused until its window ends, and refused
 * requests do not count (a client that keeps retrying is not locked out for longer).
 */
@Injectable()
export class SyncedThrottlerStorage implements ThrottlerStorage, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  /**
   * The callers' windows, least recently used first: past MAX_TRACKED the least recently seen caller is
   * forgotten, with its hits not yet sent (bounded memory wins over a count of someone long gone).
   */
  private readonly windows = new LRUCache<string, Window>({
    max: MAX_TRACKED,
    dispose: (_w, id, reason) => {
      if (reason === 'evict') {
        this.dirty.delete(id);
      }
    },
  });
  private readonly dirty = new Set<string>();
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;
  private failing = false;

  /** Prepended by the client to every key: part of what a Cluster hashes (a tag may sit in it). */
  private readonly keyPrefix: string;

  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisClient) {
    this.keyPrefix = (redis.isCluster ? (redis as Cluster).options.keyPrefix : redis.options.keyPrefix) ?? '';
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sync(), SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.sync(); // what this instance counted still reaches the others
  }

  increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    return Promise.resolve(
      this.count(SyncedThrottlerStorage.counterId(throttlerName, key), ttl, limit, throttlerName),
    );
  }

  /** The id `increment` counts `key` of throttler `throttlerName` under. */
  static counterId(throttlerName: string, key: string): string {
    return `${throttlerName}:${key}`;
  }

  /**
   * `increment`, synchronously, for a counter id from counterId(): the guard takes the count without a
   * promise (rate-limit.guard.ts), and builds the id from parts it keeps per route.
   */
  count(id: string, ttl: number, limit: number, throttlerName: string): ThrottlerStorageRecord {
    const now = Date.now();
    const w = this.windowOf(id, now, ttl);
    const seen = w.known + w.unsynced + w.inFlight;
    const timeToExpire = Math.max(1, Math.ceil((w.endsAtMs - now) / 1000));
    if (seen >= limit) {
      refused.inc({ limit: throttlerName });
      return { totalHits: seen, timeToExpire, isBlocked: true, timeToBlockExpire: timeToExpire };
    }
    w.unsynced++;
    this.dirty.add(id);
    return { totalHits: seen + 1, timeToExpire, isBlocked: false, timeToBlockExpire: 0 };
  }

  /** Sends every window's new hits; one sync at a time. Exposed for tests that must not wait a tick. */
  sync(): Promise<void> {
    this.syncing ??= this.syncDirty().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private windowOf(id: string, now: number, ttlMs: number): Window {
    const index = Math.floor(now / ttlMs);
    // a hit makes the caller the most recently used: the least recent is the one to forget
    const known = this.windows.get(id);
    if (known && known.index === index) {
      return known;
    }
    // the key names the route and caller (from the guard) and the window: one counter per window. Redis
    // Cluster hashes the first {tag}: the caller's group, so no brace in a caller's id can move it; the
    // {caller} after it keeps the key's former shape
    const redisKey = `rl:{rl${keySlot(id) % COUNTER_GROUPS}}:{${id}}:${index}`;
    const w = {
      id,
      index,
      endsAtMs: (index + 1) * ttlMs,
      ttlMs,
      redisKey,
      slot: this.redis.isCluster ? keySlot(this.keyPrefix + redisKey) : 0,
      known: 0,
      unsynced: 0,
      inFlight: 0,
    };
    this.windows.set(id, w);
    tracked.set(this.windows.size);
    return w;
  }

  private async syncDirty(): Promise<void> {
    const now = Date.now();
    const batch: Window[] = [];
    for (const id of this.dirty) {
      const w = this.windows.peek(id); // a sync is no use: recency stays as the requests left it
      if (w && w.unsynced > 0) {
        w.inFlight = w.unsynced;
        w.unsynced = 0;
        batch.push(w);
      }
    }
    this.dirty.clear();
    const calls = this.groupForCalls(batch);
    const results = await Promise.allSettled(calls.map((windows) => this.syncCall(windows)));
    let failed = 0;
    results.forEach((r, i) => {
      for (const [k, w] of calls[i].entries()) {
        if (r.status === 'fulfilled') {
          w.known = Math.max(w.known, Number(r.value[k]));
        } else {
          failed++;
          w.unsynced += w.inFlight; // sent again next time: Redis never counted them
          this.dirty.add(w.id);
        }
        w.inFlight = 0;
      }
    });
    this.reportFailures(failed);
    this.forgetEnded(now);
  }

  /**
   * The windows to send, as script calls: on a single Redis all in one (in chunks of MAX_KEYS_PER_CALL);
   * on a Cluster one per hash slot (COUNTER_GROUPS at most), since a script may only touch keys of one slot.
   */
  private groupForCalls(batch: Window[]): Window[][] {
    const groups = new Map<number, Window[]>();
    for (const w of batch) {
      let group = groups.get(w.slot);
      if (!group) {
        groups.set(w.slot, (group = []));
      }
      group.push(w);
    }
    const calls: Window[][] = [];
    for (const group of groups.values()) {
      for (let i = 0; i < group.length; i += MAX_KEYS_PER_CALL) {
        calls.push(group.slice(i, i + MAX_KEYS_PER_CALL));
      }
    }
    return calls;
  }

  private syncCall(windows: Window[]): Promise<number[]> {
    const counters = windows.map((w) => w.redisKey);
    const hitsAndOutlive = windows.flatMap((w) => [w.inFlight, w.ttlMs * 2]);
    return SYNC_SCRIPT.run(this.redis, { counters }, { hitsAndOutlive }) as Promise<number[]>;
  }

  private reportFailures(failed: number): void {
    if (failed > 0) {
      syncFailures.inc(failed);
      if (!this.failing) {
        this.logger.warn(
          'rate-limit counts cannot reach Redis; each instance limits on its own counts meanwhile',
        );
      }
      this.failing = true;
    } else if (this.failing) {
      this.logger.log('rate-limit counts shared through Redis again');
      this.failing = false;
    }
  }

  /**
   * Windows that ended and have nothing left to send are dropped. The walk goes from the least recently
   * used and stops at the first window still running: the ones after it were used more recently.
   */
  private forgetEnded(now: number): void {
    const ended: string[] = [];
    for (const id of this.windows.rkeys()) {
      const w = this.windows.peek(id)!;
      if (w.endsAtMs > now) {
        break;
      }
      if (w.unsynced === 0 && w.inFlight === 0) {
        ended.push(id);
      }
    }
    for (const id of ended) {
      this.windows.delete(id);
    }
    tracked.set(this.windows.size);
  }
}
