import { DistributedLockService } from '@app/distributed-lock';
import { LuaCall, luaCall, LuaNamed, LuaValue } from '@app/redis';
import Redis, { Cluster } from 'ioredis';
import { HoldIds } from './hold-ids';
import { HoldLayout, WAKE_KEY } from './hold-keys';
import { HoldLibrary, holdLibrary } from './lua/hold-script';
import { EVENT_SCRIPTS, eventScriptSpec } from './lua/manifest';

/** The scripts the store runs on one event's keys (lua/manifest.ts). */
export type EventScriptName = keyof typeof EVENT_SCRIPTS;
/** A script's own arguments, by name (after the event's, which HoldScripts fills in). */
export type EventScriptArgs<N extends EventScriptName> = LuaNamed<(typeof EVENT_SCRIPTS)[N]['argv']>;
/** A script's own keys besides the event's, by name. */
export type EventScriptKeys<N extends EventScriptName> = LuaNamed<(typeof EVENT_SCRIPTS)[N]['keys']>;

/**
 * The store's scripts as one function library (lua/hold-script.ts), with the seat.status records or
 * without (SEAT_STATUS_STREAM_ENABLED): each built once per process, when first asked for.
 */
const LIBRARIES = new Map<boolean, HoldLibrary>();
function libraryOf(statusStream: boolean): HoldLibrary {
  let library = LIBRARIES.get(statusStream);
  if (!library) {
    library = holdLibrary(EVENT_SCRIPTS, statusStream);
    LIBRARIES.set(statusStream, library);
  }
  return library;
}

/** The scripts that record a change for the seat.status topic (lua/hold-lifecycle.lua status_change). */
const STATUS_WRITERS: ReadonlySet<string> = new Set<EventScriptName>([
  'holdCreate',
  'holdBestAvailable',
  'holdExtend',
  'holdRelease',
  'holdForceRelease',
  'holdFinishConfirm',
  'seatsBlock',
  'seatsUnblock',
  'queueConfigure',
  'queueControl',
  'queueEntry',
  'queueLeave',
]);

/** A shard's owner is woken at most once per this long per instance for the records written meanwhile. */
export const STATUS_WAKE_MS = 50;

/** Redis's answer to an FCALL of a function it does not have (library never loaded, or lost). */
const NOT_LOADED = /function not found/i;

/**
 * The hold scripts on Redis, as functions of one library (lua/hold-script.ts), and the keys and arguments
 * each call gets: an event's keys, its shard's outbox and indexes and the fencing counter of its seat
 * locks, all under the shard's hash tag (hold-keys.ts). The counter's key comes from the lock service that
 * issues the tokens (both use the one Redis client, so its keyPrefix applies to both alike).
 *
 * The library is loaded on every master when the store starts (load()); a Redis that lost it (a restart
 * without persistence, a new master without its predecessor's data, FUNCTION FLUSH) answers "Function not
 * found", and the call loads it and runs again, as EVALSHA falls back on NOSCRIPT. Functions are part of
 * Redis's data: replicas get them, and they survive a restart with persistence.
 */
export class HoldScripts {
  private loading: Promise<void> | null = null;
  private readonly library: HoldLibrary;
  /** Shards whose owner is to be woken for the records written since (wakeRelay). */
  private readonly toWake = new Set<number>();

  constructor(
    readonly redis: Redis,
    readonly layout: HoldLayout,
    private readonly locks: DistributedLockService,
    private readonly retentionMs: number,
    private readonly statusStream = true,
  ) {
    this.library = libraryOf(statusStream);
  }

  /** Loads the library on every master (each one's slots run its functions); idempotent. */
  load(): Promise<void> {
    this.loading ??= this.loadEverywhere().finally(() => (this.loading = null));
    return this.loading;
  }

  private async loadEverywhere(): Promise<void> {
    const load = (node: Redis) => node.call('FUNCTION', 'LOAD', 'REPLACE', this.library.code);
    const cluster = this.redis as unknown as Cluster;
    if (this.redis instanceof Cluster || typeof cluster.nodes === 'function') {
      await Promise.all(cluster.nodes('master').map(load));
    } else {
      await load(this.redis);
    }
  }

  /**
   * One FCALL, sent synchronously (a pipelined section relies on it: its write leaves in the batch of its
   * lock's acquire); only a Redis without the library costs a second round trip.
   */
  private async fcall(script: EventScriptName, call: LuaCall): Promise<unknown> {
    const fn = this.library.functions[script];
    try {
      return await this.redis.fcall(fn, call.keys.length, ...call.keys, ...call.args);
    } catch (e) {
      if (!(e instanceof Error) || !NOT_LOADED.test(e.message)) {
        throw e;
      }
      await this.load();
      return this.redis.fcall(fn, call.keys.length, ...call.keys, ...call.args);
    }
  }

  /** A key of every event script's slot: what a replica acknowledgement is routed by. */
  slotKeyOf(eventId: string): string {
    return this.layout.eventKeys(eventId).holds;
  }

  /**
   * Runs a library script on one event: the event's keys and arguments (lua/manifest.ts EVENT_KEYS,
   * EVENT_ARGV), then the script's own, by the names its manifest entry gives them. `keys`: keys of the
   * same slot that the script reads besides the event's, such as the seat locks whose ownership it checks.
   */
  async onEvent<N extends EventScriptName>(
    name: N,
    eventId: string,
    args: EventScriptArgs<N>,
    keys?: EventScriptKeys<N>,
  ): Promise<unknown> {
    const reply = await this.fcall(name, this.eventCall(EVENT_SCRIPTS[name], eventId, args, keys));
    if (this.statusStream && STATUS_WRITERS.has(name)) {
      this.wakeRelay(this.layout.shardOf(eventId));
    }
    return reply;
  }

  /** Wakes the relay of the event's shard for records a script wrote (see wakeRelay). */
  wake(eventId: string): void {
    if (this.statusStream) {
      this.wakeRelay(this.layout.shardOf(eventId));
    }
  }

  /**
   * The relay reads the streams of the shards the sweeper just swept (outbox/outbox-meter.ts), and a
   * hold's own changes are not due work: the shard's entry in the wake index is set to 0 so that its owner,
   * whichever instance, sweeps it at its next tick and the relay publishes what was written. One ZADD per
   * shard per STATUS_WAKE_MS, sent after every write of that time (its scripts answered first), not
   * waited for: one that is lost delays the records to the shard's next sweep, it never loses them.
   */
  private wakeRelay(shard: number): void {
    if (this.toWake.has(shard)) {
      return;
    }
    this.toWake.add(shard);
    setTimeout(() => {
      this.toWake.delete(shard);
      void this.redis.zadd(WAKE_KEY, 'LT', 0, shard).catch(() => undefined);
    }, STATUS_WAKE_MS).unref();
  }

  /**
   * KEYS and ARGV of an event script (lua/manifest.ts EVENT_KEYS, EVENT_ARGV, then its own, `own` naming
   * them), by name: the event's keys, its shard's outbox and indexes and the fencing counter of its seat
   * locks, then the script's.
   */
  eventCall(
    own: { file: string; keys: readonly string[]; argv: readonly string[] },
    eventId: string,
    args: Readonly<Record<string, LuaValue | readonly LuaValue[]>>,
    keys: Readonly<Record<string, LuaValue | readonly LuaValue[]>> = {},
  ): LuaCall {
    const shard = this.layout.shardOf(eventId);
    const e = this.layout.eventKeys(eventId);
    const k = this.layout.shardKeys(shard);
    const eventKeys = {
      seats: e.seats,
      holds: e.holds,
      due: e.due,
      users: e.users,
      outbox: k.outbox,
      gc: e.gc,
      // the seat locks' tag is the shard's (seat:{s<k>}:<eventId>:<seatId>): their counter is this one
      fence: this.locks.fenceKey(this.layout.tagOf(shard)),
      meta: e.meta,
      changes: e.changes,
      shardDue: k.due,
      shardGc: k.gc,
    };
    const eventArgs = { eventId, holdIdPrefix: HoldIds.prefixOf(eventId), retentionMs: this.retentionMs };
    return luaCall(eventScriptSpec(own), { ...eventKeys, ...keys }, { ...eventArgs, ...args });
  }

  /**
   * The shard sweep (lua/sweep-shard.lua): the per-event keys carry the shard's due key as placeholders
   * (use_event() points them at each event it visits), and the event id and prefix are ''.
   */
  sweepShard(shard: number, args: EventScriptArgs<'holdSweepShard'>): Promise<unknown> {
    const k = this.layout.shardKeys(shard);
    const placeholder = k.due;
    const keys = {
      seats: placeholder,
      holds: placeholder,
      due: placeholder,
      users: placeholder,
      outbox: k.outbox,
      gc: placeholder,
      fence: this.locks.fenceKey(this.layout.tagOf(shard)),
      meta: placeholder,
      changes: placeholder,
      shardDue: k.due,
      shardGc: k.gc,
      shardEvents: k.events,
    };
    const eventArgs = { eventId: '', holdIdPrefix: '', retentionMs: this.retentionMs };
    const spec = eventScriptSpec(EVENT_SCRIPTS.holdSweepShard);
    return this.fcall('holdSweepShard', luaCall(spec, keys, { ...eventArgs, ...args }));
  }
}
