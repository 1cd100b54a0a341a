import { DistributedLockService } from '@app/distributed-lock';
import Redis from 'ioredis';
import { HoldIds } from './hold-ids';
import { HoldLayout } from './hold-keys';
import { ABANDON_CONFIRM, BEGIN_CONFIRM, FINISH_CONFIRM } from './lua/confirm-hold.lua';
import { CREATE_HOLD } from './lua/create-hold.lua';
import { EXTEND_HOLD } from './lua/extend-hold.lua';
import { holdScript } from './lua/hold-script';
import { READ_HOLD } from './lua/read-hold.lua';
import { RELEASE_HOLD } from './lua/release-hold.lua';
import { MARK_BOOKED } from './lua/mark-booked.lua';
import { SWEEP } from './lua/sweep.lua';

/** The scripts the store runs on one event's keys (the layout of prelude.lua.ts: 11 keys, 3 arguments). */
export const EVENT_SCRIPTS = {
  holdCreate: CREATE_HOLD,
  holdRead: READ_HOLD,
  holdExtend: EXTEND_HOLD,
  holdRelease: RELEASE_HOLD,
  holdBeginConfirm: BEGIN_CONFIRM,
  holdFinishConfirm: FINISH_CONFIRM,
  holdAbandonConfirm: ABANDON_CONFIRM,
  holdMarkBooked: MARK_BOOKED,
} as const;

export type EventScriptName = keyof typeof EVENT_SCRIPTS;

/** KEYS of an event script (prelude.lua.ts); the sweep declares one more (the shard's events index). */
const EVENT_SCRIPT_KEYS = 11;

type ScriptRunner = (...args: (string | number)[]) => Promise<unknown>;

/**
 * The hold scripts registered on the Redis client (defineCommand: EVALSHA, and EVAL after a SCRIPT FLUSH
 * or a restart, on one Redis as on every node of a Cluster), and the keys and arguments each call gets:
 * an event's keys, its shard's outbox and indexes and the fencing counter of its seat locks, all under
 * the shard's hash tag (hold-keys.ts). The counter's key comes from the lock service that issues the
 * tokens (both use the one Redis client, so its keyPrefix applies to both alike).
 */
export class HoldScripts {
  private readonly runners = new Map<string, ScriptRunner>();

  constructor(
    private readonly redis: Redis,
    readonly layout: HoldLayout,
    private readonly locks: DistributedLockService,
    private readonly retentionMs: number,
  ) {
    for (const [name, lua] of Object.entries(EVENT_SCRIPTS)) {
      this.define(name, lua);
    }
    this.define('holdSweepShard', SWEEP, EVENT_SCRIPT_KEYS + 1);
  }

  /**
   * Registers a script that starts with PRELUDE (hold-script.ts wraps it so its changes reach the
   * seat-map log) under `name`, once per client: several stores may share one client. Only here, while
   * the app is built: an ioredis auto-pipeline copies the defined commands when it is created, so a
   * command defined later and called while a pipeline is queued is missing from it, and that pipeline's
   * answers go to the wrong callers (an uncaught TypeError; ioredis issue 1931). Rare scripts use
   * evalOnEvent instead.
   */
  private define(name: string, lua: string, numberOfKeys = EVENT_SCRIPT_KEYS): void {
    if (!(name in this.redis)) {
      this.redis.defineCommand(name, { numberOfKeys, lua: holdScript(lua) });
    }
    const fn = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name];
    this.runners.set(name, (...args) => fn.call(this.redis, ...args));
  }

  /** A key of every event script's slot: what a replica acknowledgement is routed by. */
  slotKeyOf(eventId: string): string {
    return this.layout.eventKeys(eventId).holds;
  }

  /** Runs a defined script on one event: its keys and the prelude's arguments, then `args` (ARGV[4..]). */
  onEvent(name: EventScriptName, eventId: string, args: (string | number)[]): Promise<unknown> {
    return this.runner(name)(...this.eventCall(eventId, args));
  }

  /**
   * Runs a script that starts with PRELUDE and is not registered (EVAL: the whole script every call) on
   * one event, as onEvent does: for rare reads such as a full scan, not for the hold path.
   */
  evalOnEvent(lua: string, eventId: string, args: (string | number)[]): Promise<unknown> {
    return this.redis.eval(holdScript(lua), EVENT_SCRIPT_KEYS, ...this.eventCall(eventId, args));
  }

  /** KEYS and ARGV of an event script (prelude.lua.ts). */
  private eventCall(eventId: string, args: (string | number)[]): (string | number)[] {
    const shard = this.layout.shardOf(eventId);
    const e = this.layout.eventKeys(eventId);
    const k = this.layout.shardKeys(shard);
    return [
      e.seats,
      e.holds,
      e.due,
      e.users,
      k.outbox,
      e.gc,
      // the seat locks' tag is the shard's (seat:{s<k>}:<eventId>:<seatId>): their counter is this one
      this.locks.fenceKey(this.layout.tagOf(shard)),
      e.meta,
      e.changes,
      k.due,
      k.gc,
      eventId,
      HoldIds.prefixOf(eventId),
      this.retentionMs,
      ...args,
    ];
  }

  /** The shard sweep (sweep.lua.ts): the per-event positions are placeholders in the shard's slot. */
  sweepShard(shard: number, args: (string | number)[]): Promise<unknown> {
    const k = this.layout.shardKeys(shard);
    return this.runner('holdSweepShard')(
      k.due,
      k.due,
      k.due,
      k.due,
      k.outbox,
      k.due,
      this.locks.fenceKey(this.layout.tagOf(shard)),
      k.due,
      k.due,
      k.due,
      k.gc,
      k.events,
      '',
      '',
      this.retentionMs,
      ...args,
    );
  }

  private runner(name: string): ScriptRunner {
    const run = this.runners.get(name);
    if (!run) {
      throw new Error(`hold script ${name} is not defined`);
    }
    return run;
  }
}
