import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { REDIS_CLIENT } from '@app/redis';
import Redis from 'ioredis';
import { HoldIds } from './hold-ids';
import { HoldLayout } from './hold-keys';
import {
  CreateHoldResult,
  HoldRecord,
  HoldStatus,
  LostSeat,
  SeatConflict,
  SeatState,
  StoreResult,
  SweepResult,
} from './hold.types';
import { ABANDON_CONFIRM, BEGIN_CONFIRM, FINISH_CONFIRM } from './lua/confirm-hold.lua';
import { CREATE_HOLD } from './lua/create-hold.lua';
import { EXTEND_HOLD } from './lua/extend-hold.lua';
import { holdScript } from './lua/hold-script';
import { READ_HOLD } from './lua/read-hold.lua';
import { RELEASE_HOLD } from './lua/release-hold.lua';
import { MARK_BOOKED, SEAT_STATES } from './lua/seat-states.lua';
import { SWEEP } from './lua/sweep.lua';
import { readSeatConflicts } from './seat-conflicts';

const SCRIPTS = {
  holdCreate: CREATE_HOLD,
  holdRead: READ_HOLD,
  holdExtend: EXTEND_HOLD,
  holdRelease: RELEASE_HOLD,
  holdBeginConfirm: BEGIN_CONFIRM,
  holdFinishConfirm: FINISH_CONFIRM,
  holdAbandonConfirm: ABANDON_CONFIRM,
  holdSeatStates: SEAT_STATES,
  holdMarkBooked: MARK_BOOKED,
} as const;

type ScriptName = keyof typeof SCRIPTS;
type Reply = [string, ...unknown[]];
type ScriptRunner = (...args: (string | number)[]) => Promise<unknown>;

/** How long a CONFIRMING hold past its deadline waits before the sweeper reports it again. */
const STUCK_RECHECK_MS = 5000;
/** Old events whose keys one sweep step deletes at most (each UNLINK is freed off the main thread). */
const MAX_EVENTS_REMOVED_PER_STEP = 20;
/** An event past its retention that still has a live hold is looked at again when that hold is due, at least this much later. */
const EVENT_RECHECK_MS = 1000;

/**
 * The seat holds of every event, in Redis, laid out on shards (hold-keys.ts). Each method is one Lua
 * script (one round trip) over the keys of one event, its shard's outbox and indexes and the fencing
 * counter of its seat locks (one hash tag: the shard's), so every multi-step change, its record for
 * seat-map readers included, is atomic and works on Redis Cluster. This class owns the key layout and
 * the scripts; nothing else in the service touches these keys. The counter's key comes from the lock
 * service that issues the tokens (both use the one Redis client, so its keyPrefix applies to both alike).
 */
@Injectable()
export class HoldStore {
  readonly layout: HoldLayout;
  private readonly retentionMs: number;
  private readonly eventRetentionMs: number;
  private readonly run: Record<ScriptName | 'holdSweepShard', ScriptRunner>;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: AppConfig,
    private readonly locks: DistributedLockService,
  ) {
    this.layout = new HoldLayout(config.holds.shards);
    this.retentionMs = config.holds.retentionSeconds * 1000;
    this.eventRetentionMs = config.holds.eventRetentionSeconds * 1000;
    const runners = {} as Record<ScriptName | 'holdSweepShard', ScriptRunner>;
    const scripts: [ScriptName | 'holdSweepShard', string, number][] = [
      ...(Object.entries(SCRIPTS) as [ScriptName, string][]).map(
        ([name, lua]) => [name, lua, 11] as [ScriptName, string, number],
      ),
      ['holdSweepShard', SWEEP, 12],
    ];
    for (const [name, lua, numberOfKeys] of scripts) {
      // ioredis sends EVALSHA and falls back to EVAL after a SCRIPT FLUSH or a Redis restart.
      if (!(name in redis)) {
        redis.defineCommand(name, { numberOfKeys, lua: holdScript(lua) });
      }
      const fn = (redis as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name];
      runners[name] = (...args) => fn.call(redis, ...args);
    }
    this.run = runners;
  }

  async createHold(p: {
    eventId: string;
    holdId: string;
    userId: string;
    seatIds: string[];
    ttlMs: number;
    maxLifetimeMs: number;
    maxSeatsPerUser: number;
    fencingToken: number;
  }): Promise<CreateHoldResult> {
    const { hid } = this.ids(p.holdId, p.eventId);
    if (p.seatIds.length === 0 || new Set(p.seatIds).size !== p.seatIds.length) {
      throw new Error('createHold needs distinct seat ids');
    }
    const reply = await this.call('holdCreate', p.eventId, [
      hid,
      p.userId,
      p.ttlMs,
      p.maxLifetimeMs,
      p.maxSeatsPerUser,
      p.fencingToken,
      ...p.seatIds,
    ]);
    switch (reply[0]) {
      case 'OK':
        return { ok: true, hold: this.toRecord(p.eventId, reply[1]) };
      case 'SEATS_UNAVAILABLE':
        return {
          ok: false,
          error: 'SEATS_UNAVAILABLE',
          conflicts: (reply[1] as [string, SeatConflict['reason']][]).map(([seatId, reason]) => ({
            seatId,
            reason,
          })),
        };
      case 'HOLD_LIMIT_EXCEEDED':
        return {
          ok: false,
          error: 'HOLD_LIMIT_EXCEEDED',
          heldSeats: Number(reply[1]),
          limit: Number(reply[2]),
        };
      case 'STALE_FENCING_TOKEN':
        return { ok: false, error: 'STALE_FENCING_TOKEN' };
      default:
        throw new Error(`holdCreate: unexpected reply ${String(reply[0])}`);
    }
  }

  async getHold(holdId: string): Promise<HoldRecord | null> {
    const id = HoldIds.parse(holdId);
    if (!id) {
      return null;
    }
    const reply = await this.call('holdRead', id.eventId, [id.hid]);
    return reply[0] === 'OK' ? this.toRecord(id.eventId, reply[1]) : null;
  }

  extendHold(p: {
    holdId: string;
    userId: string;
    ttlMs: number;
    maxExtensions: number;
    fencingToken: number;
  }): Promise<
    StoreResult<
      | 'HOLD_NOT_FOUND'
      | 'HOLD_NOT_ACTIVE'
      | 'HOLD_LIFETIME_EXCEEDED'
      | 'EXTENSION_LIMIT_REACHED'
      | 'SEATS_LOST'
      | 'STALE_FENCING_TOKEN'
    >
  > {
    return this.holdCommand('holdExtend', p.holdId, [p.userId, p.ttlMs, p.maxExtensions, p.fencingToken]);
  }

  releaseHold(p: {
    holdId: string;
    userId: string;
    fencingToken: number;
  }): Promise<StoreResult<'HOLD_NOT_FOUND' | 'HOLD_CONFIRMED' | 'STALE_FENCING_TOKEN'>> {
    return this.holdCommand('holdRelease', p.holdId, [p.userId, p.fencingToken]);
  }

  beginConfirm(p: {
    holdId: string;
    userId: string;
    orderId: string;
    fencingToken: number;
    confirmTimeoutMs: number;
  }): Promise<
    StoreResult<'HOLD_NOT_FOUND' | 'HOLD_EXPIRED' | 'HOLD_NOT_ACTIVE' | 'SEATS_LOST' | 'STALE_FENCING_TOKEN'>
  > {
    return this.holdCommand('holdBeginConfirm', p.holdId, [
      p.userId,
      p.orderId,
      p.fencingToken,
      p.confirmTimeoutMs,
    ]);
  }

  finishConfirm(p: {
    holdId: string;
    orderId: string;
  }): Promise<StoreResult<'HOLD_NOT_FOUND' | 'HOLD_NOT_ACTIVE'>> {
    return this.holdCommand('holdFinishConfirm', p.holdId, [p.orderId]);
  }

  /** Gives up the confirm attempt begun with `fencingToken` (only that one; see ABANDON_CONFIRM). */
  abandonConfirm(p: {
    holdId: string;
    fencingToken?: number;
  }): Promise<StoreResult<'HOLD_NOT_FOUND' | 'HOLD_NOT_ACTIVE'>> {
    const attempt = p.fencingToken === undefined ? [] : [p.fencingToken];
    return this.holdCommand('holdAbandonConfirm', p.holdId, attempt);
  }

  /** Which of these seats are taken right now, read without any lock (see seat-conflicts.ts). */
  seatConflicts(eventId: string, seatIds: readonly string[]): Promise<SeatConflict[]> {
    return readSeatConflicts(this.redis, this.layout.eventKeys(eventId), seatIds);
  }

  /** Seats that are HELD or BOOKED right now; every other seat of the event is AVAILABLE. */
  async seatStates(eventId: string): Promise<Map<string, SeatState>> {
    const flat = (await this.runScript('holdSeatStates', eventId, [])) as string[];
    const states = new Map<string, SeatState>();
    for (let i = 0; i < flat.length; i += 2) {
      states.set(flat[i], flat[i + 1] as SeatState);
    }
    return states;
  }

  /** Re-marks seats booked in PostgreSQL (repairs a Redis that lost data). Returns how many changed. */
  async markBooked(eventId: string, seatIds: string[]): Promise<number> {
    let changed = 0;
    for (let i = 0; i < seatIds.length; i += 1000) {
      changed += Number(await this.runScript('holdMarkBooked', eventId, seatIds.slice(i, i + 1000)));
    }
    return changed;
  }

  /**
   * One bounded sweep step for one shard (see lua/sweep.lua.ts): due holds of its events expired, ended
   * holds past retention forgotten, events past their retention with no live hold removed.
   */
  async sweepShard(shard: number, batchSize: number): Promise<SweepResult> {
    const k = this.layout.shardKeys(shard);
    const r = (await this.run.holdSweepShard(
      // per-event positions: placeholders in the shard's slot (the script points them at each event)
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
      batchSize,
      STUCK_RECHECK_MS,
      MAX_EVENTS_REMOVED_PER_STEP,
      EVENT_RECHECK_MS,
    )) as (number | string)[];
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
   * past it, once no hold is live, the shard's sweep removes the event's keys. Idempotent.
   */
  async registerEvent(eventId: string, startsAt: Date): Promise<void> {
    HoldIds.prefixOf(eventId);
    const until = startsAt.getTime() + this.eventRetentionMs;
    await this.redis.zadd(this.layout.shardKeys(this.layout.shardOf(eventId)).events, until, eventId);
  }

  /** The event's retain-until (ms) in its shard's index, or null when it is not registered. */
  async retainUntil(eventId: string): Promise<number | null> {
    const score = await this.redis.zscore(
      this.layout.shardKeys(this.layout.shardOf(eventId)).events,
      eventId,
    );
    return score === null ? null : Number(score);
  }

  /** The outbox stream key of a shard, without the client's keyPrefix (ioredis adds it). */
  outboxKey(shard: number): string {
    return this.layout.shardKeys(shard).outbox;
  }

  /** The outbox stream key of the shard an event belongs to. */
  eventOutboxKey(eventId: string): string {
    return this.outboxKey(this.layout.shardOf(eventId));
  }

  private async holdCommand<E extends string>(
    script: ScriptName,
    holdId: string,
    args: (string | number)[],
  ): Promise<StoreResult<E>> {
    const id = HoldIds.parse(holdId);
    if (!id) {
      return { ok: false, error: 'HOLD_NOT_FOUND' as E };
    }
    const reply = await this.call(script, id.eventId, [id.hid, ...args]);
    const hold = reply[1] === undefined ? undefined : this.toRecord(id.eventId, reply[1]);
    if (reply[0] === 'OK') {
      return { ok: true, hold: hold! };
    }
    if (reply[0] === 'SEATS_LOST') {
      const lostSeats: LostSeat[] = (reply[2] as [string, LostSeat['state']][]).map(([seatId, state]) => ({
        seatId,
        state,
      }));
      return { ok: false, error: reply[0] as E, hold, lostSeats };
    }
    return { ok: false, error: reply[0] as E, hold };
  }

  private async call(script: ScriptName, eventId: string, args: (string | number)[]): Promise<Reply> {
    return (await this.runScript(script, eventId, args)) as Reply;
  }

  private runScript(script: ScriptName, eventId: string, args: (string | number)[]): Promise<unknown> {
    const shard = this.layout.shardOf(eventId);
    const e = this.layout.eventKeys(eventId);
    const k = this.layout.shardKeys(shard);
    return this.run[script](
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
    );
  }

  private toRecord(eventId: string, raw: unknown): HoldRecord {
    const r = raw as [
      string,
      string,
      HoldStatus,
      string[],
      number,
      number,
      number,
      number,
      number,
      string,
      number,
      number,
      number,
    ];
    return {
      holdId: r[0],
      eventId,
      userId: r[1],
      status: r[2],
      seatIds: r[3],
      createdAtMs: Number(r[4]),
      expireAtMs: Number(r[5]),
      maxExpireAtMs: Number(r[6]),
      extensionsUsed: Number(r[7]),
      fencingToken: Number(r[8]),
      orderId: r[9] ? r[9] : null,
      endedAtMs: Number(r[10]) || null,
      confirmDeadlineMs: Number(r[11]) || null,
      nowMs: Number(r[12]),
    };
  }

  private ids(holdId: string, eventId: string): { hid: string } {
    const id = HoldIds.parse(holdId);
    if (!id || id.eventId !== eventId.toLowerCase()) {
      throw new Error(`hold id ${holdId} does not belong to event ${eventId}`);
    }
    return id;
  }
}
