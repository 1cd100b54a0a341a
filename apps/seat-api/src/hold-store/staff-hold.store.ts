import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { REDIS_CLIENT, ReplicaAcks } from '@app/redis';
import Redis from 'ioredis';
import { HoldIds } from './hold-ids';
import { WAKE_KEY } from './hold-keys';
import { ScriptReply, toHoldRecord, toStoreResult } from './hold-replies';
import { HoldStore } from './hold.store';
import { HoldRecord, StoreResult } from './hold.types';
import { StaffAction, staffActionArguments } from './staff-action';

/** Hold buckets one page read visits at most (about 50 holds each): bounds the work of one call. */
const MAX_BUCKETS_PER_PAGE = 64;

/** Where a page of an event's holds resumes: a hold bucket, and the last hid listed in it ('' for none). */
export interface HoldCursor {
  bucket: number;
  afterHid: string;
}

export interface HoldPage {
  holds: HoldRecord[];
  /** null: the event has no more holds. */
  next: HoldCursor | null;
}

/** Why a seat could not be blocked (block-seats.lua). */
export interface BlockConflict {
  seatId: string;
  reason: 'HELD' | 'BOOKED' | 'BLOCKED';
}

export type BlockResult =
  | { ok: true }
  | { ok: false; error: 'SEATS_UNAVAILABLE'; conflicts: BlockConflict[] }
  | { ok: false; error: 'ACTION_CANCELLED' | 'STALE_FENCING_TOKEN' };

export type UnblockResult =
  | { ok: true }
  | { ok: false; error: 'NOT_BLOCKED'; seatIds: string[] }
  | { ok: false; error: 'ACTION_CANCELLED' | 'STALE_FENCING_TOKEN' };

/** How a staff action stands in Redis once decided (settleAction). */
export type StaffActionOutcome = 'APPLIED' | 'CANCELLED';

/**
 * What box-office staff do to the holds of an event, on the hold store's keys and scripts (lua/manifest.ts:
 * holdList, holdForceRelease, staffActionSettle). A staff change carries the id of its audited action and
 * records it in the event's staff ledger (hold-keys.ts) in the same script, so whether it happened can
 * always be asked of Redis afterwards (settleAction) and the audit entry in PostgreSQL settled from the
 * answer; a change is applied at most once per action, and never once its action was given up.
 */
@Injectable()
export class StaffHoldStore {
  private readonly acks: ReplicaAcks;
  private readonly ledgerTtlMs: number;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly store: HoldStore,
    config: AppConfig,
  ) {
    this.acks = new ReplicaAcks(redis, config.replicaAck);
    // as long as an ended hold stays readable: any audit entry left pending is settled well within it
    this.ledgerTtlMs = config.holds.retentionSeconds * 1000;
  }

  /** One page of the event's holds, optionally only one user's or one status's (as clients see it). */
  async listHolds(
    eventId: string,
    p: { from: HoldCursor | null; limit: number; userId?: string; status?: string },
  ): Promise<HoldPage> {
    const from = p.from ?? { bucket: 0, afterHid: '' };
    const reply = (await this.store.scripts.onEvent('holdList', eventId, {
      fromBucket: from.bucket,
      afterHid: from.afterHid,
      limit: p.limit,
      userId: p.userId ?? '',
      status: p.status ?? '',
      maxBuckets: MAX_BUCKETS_PER_PAGE,
    })) as [number, string, unknown[]];
    const next = Number(reply[0]);
    return {
      holds: reply[2].map((raw) => toHoldRecord(eventId, raw)),
      next: next < 0 ? null : { bucket: next, afterHid: reply[1] },
    };
  }

  /**
   * Releases the hold whoever holds it, as staff action `action` (at most once; never once the action
   * was given up: ACTION_CANCELLED). Needs the seat lock's fencing token, as every seat write does.
   */
  async forceRelease(p: {
    holdId: string;
    fencingToken: number;
    action: StaffAction;
  }): Promise<
    StoreResult<
      'HOLD_NOT_FOUND' | 'HOLD_CONFIRMED' | 'HOLD_NOT_ACTIVE' | 'STALE_FENCING_TOKEN' | 'ACTION_CANCELLED'
    >
  > {
    const id = HoldIds.parse(p.holdId);
    if (!id) {
      return { ok: false, error: 'HOLD_NOT_FOUND' };
    }
    const ack = this.acks.before(this.store.scripts.slotKeyOf(id.eventId));
    const reply = (await this.store.scripts.onEvent(
      'holdForceRelease',
      id.eventId,
      { hid: id.hid, fencingToken: p.fencingToken, ...this.described(p.action) },
      this.ledger(id.eventId),
    )) as ScriptReply;
    if (reply[0] === 'OK') {
      await ack.confirm('force-release');
    }
    return toStoreResult(id.eventId, reply);
  }

  /**
   * Makes the seats of a booking available again and records its BookingCancelled in the outbox, as staff
   * action `action` (cancel-booking.lua: at most once; never once the action was given up). `freed`: the
   * seats Redis still had booked for it (none for a replay of an action applied already).
   */
  async cancelBooking(p: {
    eventId: string;
    bookingId: string;
    holdId: string;
    orderId: string;
    userId: string;
    seatIds: string[];
    /** Its places of general-admission areas, booked until this cancel. */
    places?: { area: string; quantity: number }[];
    fencingToken: number;
    action: StaffAction;
  }): Promise<
    { ok: true; freed: string[] } | { ok: false; error: 'ACTION_CANCELLED' | 'STALE_FENCING_TOKEN' }
  > {
    const hid = HoldIds.parse(p.holdId)?.hid ?? '';
    const ack = this.acks.before(this.store.scripts.slotKeyOf(p.eventId));
    const reply = (await this.store.scripts.onEvent(
      'bookingCancel',
      p.eventId,
      {
        hid,
        fencingToken: p.fencingToken,
        ...this.described(p.action),
        bookingId: p.bookingId,
        orderId: p.orderId,
        userId: p.userId,
        places: (p.places ?? []).map((x) => `${x.area}:${x.quantity}`).join(','),
        seatIds: p.seatIds,
      },
      this.ledger(p.eventId),
    )) as [string, string[]?];
    if (reply[0] !== 'OK') {
      return { ok: false, error: reply[0] as 'ACTION_CANCELLED' | 'STALE_FENCING_TOKEN' };
    }
    await ack.confirm('cancel-booking');
    // the relay reads a shard's outbox when its sweep had work: the shard's owner is woken now (not
    // waited for: the sweeper's round of every shard it owns makes up for a wake that is lost)
    const shard = this.store.layout.shardOf(p.eventId);
    void this.redis.zadd(WAKE_KEY, 'LT', Date.now(), shard).catch(() => undefined);
    return { ok: true, freed: reply[1] ?? [] };
  }

  /**
   * Takes the seats off sale, all or none, as staff action `action` (block-seats.lua): refused with the
   * seats that are held, booked or blocked already. Needs the seat lock's fencing token.
   */
  async blockSeats(p: {
    eventId: string;
    seatIds: string[];
    fencingToken: number;
    action: StaffAction;
  }): Promise<BlockResult> {
    const reply = await this.seatsChange('seatsBlock', p);
    if (reply[0] === 'SEATS_UNAVAILABLE') {
      const conflicts = (reply[1] as [string, BlockConflict['reason']][]).map(([seatId, reason]) => ({
        seatId,
        reason,
      }));
      return { ok: false, error: 'SEATS_UNAVAILABLE', conflicts };
    }
    return reply[0] === 'OK' ? { ok: true } : { ok: false, error: reply[0] as 'ACTION_CANCELLED' };
  }

  /** Puts blocked seats back on sale, all or none, as staff action `action` (unblock-seats.lua). */
  async unblockSeats(p: {
    eventId: string;
    seatIds: string[];
    fencingToken: number;
    action: StaffAction;
  }): Promise<UnblockResult> {
    const reply = await this.seatsChange('seatsUnblock', p);
    if (reply[0] === 'NOT_BLOCKED') {
      return { ok: false, error: 'NOT_BLOCKED', seatIds: reply[1] as string[] };
    }
    return reply[0] === 'OK' ? { ok: true } : { ok: false, error: reply[0] as 'ACTION_CANCELLED' };
  }

  /**
   * Takes `quantity` places of general-admission area `area` off sale (`block`) or puts them back, as staff
   * action `action` (block-places.lua): refused SOLD_OUT with the places free, or NOT_BLOCKED with the
   * places blocked, nothing written.
   */
  async blockPlaces(p: {
    eventId: string;
    area: string;
    quantity: number;
    block: boolean;
    action: StaffAction;
  }): Promise<
    | { ok: true }
    | { ok: false; error: 'SOLD_OUT' | 'NOT_BLOCKED'; count: number }
    | { ok: false; error: 'ACTION_CANCELLED' }
  > {
    const ack = this.acks.before(this.store.scripts.slotKeyOf(p.eventId));
    const reply = (await this.store.scripts.onEvent(
      'placesBlock',
      p.eventId,
      {
        mode: p.block ? 'block' : 'unblock',
        area: p.area,
        quantity: p.quantity,
        ...this.described(p.action),
      },
      this.ledger(p.eventId),
    )) as [string, number?];
    if (reply[0] === 'OK') {
      await ack.confirm(p.block ? 'block-places' : 'unblock-places');
      return { ok: true };
    }
    if (reply[0] === 'SOLD_OUT' || reply[0] === 'NOT_BLOCKED') {
      return { ok: false, error: reply[0], count: Number(reply[1]) };
    }
    return { ok: false, error: 'ACTION_CANCELLED' };
  }

  /**
   * Re-marks seats blocked in PostgreSQL (repairs a Redis that lost data, as HoldStore.markBooked does for
   * booked ones). Returns how many changed. Not waited for on replicas: the repair runs again wherever
   * Redis lost it.
   */
  async markBlocked(eventId: string, seatIds: string[]): Promise<number> {
    let changed = 0;
    for (let i = 0; i < seatIds.length; i += 1000) {
      changed += Number(
        await this.store.scripts.onEvent('seatsMarkBlocked', eventId, {
          seatIds: seatIds.slice(i, i + 1000),
        }),
      );
    }
    return changed;
  }

  private async seatsChange(
    script: 'seatsBlock' | 'seatsUnblock',
    p: { eventId: string; seatIds: string[]; fencingToken: number; action: StaffAction },
  ): Promise<[string, unknown?]> {
    const ack = this.acks.before(this.store.scripts.slotKeyOf(p.eventId));
    const reply = (await this.store.scripts.onEvent(
      script,
      p.eventId,
      { fencingToken: p.fencingToken, ...this.described(p.action), seatIds: p.seatIds },
      this.ledger(p.eventId),
    )) as [string, unknown?];
    if (reply[0] === 'OK') {
      await ack.confirm(script === 'seatsBlock' ? 'block-seats' : 'unblock-seats');
    }
    return reply;
  }

  /** Whether staff action `actionId` made its change (read only: an action not applied stays open). */
  async actionApplied(eventId: string, actionId: string): Promise<boolean> {
    return (await this.redis.hget(this.store.layout.staffLedgerKey(eventId), actionId)) === 'A';
  }

  /**
   * Decides staff action `actionId` on the event for good: APPLIED if its change was made, else it is
   * given up (its change can no longer be made, even by a command still on its way) and CANCELLED.
   */
  async settleAction(eventId: string, actionId: string): Promise<StaffActionOutcome> {
    const ack = this.acks.before(this.store.scripts.slotKeyOf(eventId));
    const outcome = (await this.store.scripts.onEvent(
      'staffActionSettle',
      eventId,
      { actionId, ledgerTtlMs: this.ledgerTtlMs },
      this.ledger(eventId),
    )) as StaffActionOutcome;
    if (outcome === 'CANCELLED') {
      // the give-up must outlive a failover, or a late change could still land on a promoted replica
      await ack.confirm('staff-action-settle');
    }
    return outcome;
  }

  /** The event's staff-action ledger, the extra key of every staff script. */
  private ledger(eventId: string) {
    return { staffLedger: this.store.layout.staffLedgerKey(eventId) };
  }

  private described(action: StaffAction) {
    return staffActionArguments(action, this.ledgerTtlMs);
  }
}
