import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { OrphanRule } from '@app/database';
import { DistributedLockService } from '@app/distributed-lock';
import { REDIS_CLIENT, ReplicaAcks } from '@app/redis';
import Redis from 'ioredis';
import { HoldIds } from './hold-ids';
import { WAKE_KEY } from './hold-keys';
import { dueSooner, ScriptReply, toHoldRecord } from './hold-replies';
import { HoldStore } from './hold.store';
import { HoldRecord, QueueRefusal, queueRefusalOf } from './hold.types';
import { ALLOCATION_MAX_SEATS } from './lua/manifest';
import { HoldTerms, holdTermsArguments } from './create-hold-request';

/** One row of an event's layout as the free-seat index keeps it (lua/allocation-index.lua). */
export interface AllocationRow {
  /** `<section>-<row>`: the seat ids of the row are `<rowKey>-1` .. `<rowKey>-<seats>`. */
  rowKey: string;
  seats: number;
  /** Lower is better: rows are searched in this order. */
  rank: number;
  section: string;
  category: string;
  /** By seat number: 'a' a wheelchair place, 'c' a companion seat, '.' neither; '' when the row has neither. */
  access: string;
}

/** An event's rows and orphan rule: what its free-seat index is built from. */
export interface AllocationLayout {
  rows: AllocationRow[];
  orphanRule: OrphanRule;
}

/** Seats one build call reads at most: a large event's index is built in several short calls. */
const BUILD_SEATS_PER_CALL = 2000;

/** Why no block was found: none of the matching seats is free, or no `quantity` of them side by side. */
export type AllocationShortage = 'SOLD_OUT' | 'NOT_ENOUGH_TOGETHER';

export type BestAvailableResult =
  | { ok: true; hold: HoldRecord }
  /** `free`: how many matching seats are free, counted up to the quantity asked for. */
  | { ok: false; error: 'SEATS_UNAVAILABLE'; reason: AllocationShortage; free: number }
  | { ok: false; error: 'HOLD_LIMIT_EXCEEDED'; heldSeats: number; limit: number }
  | { ok: false; error: 'EVENT_ENDED' }
  | { ok: false; error: 'POLICY_CHANGED'; current: string }
  | QueueRefusal;

/**
 * Best-available holds (lua/best-available.lua): the script picks the seats and holds them in one step on
 * the event's shard, so two requests never get the same seat and no request waits for a lock. The seats
 * it reads come from the event's free-seat index, built from the layout at the event's first
 * best-available hold (lua/allocation-build.lua) and kept by every seat change after.
 */
@Injectable()
export class AllocationStore {
  private readonly acks: ReplicaAcks;

  constructor(
    private readonly store: HoldStore,
    private readonly locks: DistributedLockService,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: AppConfig,
  ) {
    this.acks = new ReplicaAcks(redis, config.replicaAck);
  }

  async bestAvailable(
    p: HoldTerms & {
      eventId: string;
      holdId: string;
      userId: string;
      quantity: number;
      section?: string;
      category?: string;
      /** Only wheelchair places and their companion seats, at least one place among them. */
      accessible?: boolean;
      /** An ordinary request may have wheelchair places and companion seats when no block of others fits. */
      accessibleWhenOthersGone?: boolean;
    },
    /** The event's layout, asked for only when Redis has no index of the event yet. */
    layout: () => AllocationLayout,
  ): Promise<BestAvailableResult> {
    const id = HoldIds.parse(p.holdId);
    if (!id || id.eventId !== p.eventId.toLowerCase()) {
      throw new Error(`hold id ${p.holdId} does not belong to event ${p.eventId}`);
    }
    const { hid } = id;
    if (!Number.isInteger(p.quantity) || p.quantity < 1 || p.quantity > ALLOCATION_MAX_SEATS) {
      throw new RangeError(`bestAvailable: quantity must be 1..${ALLOCATION_MAX_SEATS}, got ${p.quantity}`);
    }
    const args = {
      ...holdTermsArguments('bestAvailable', hid, p.userId, p),
      quantity: p.quantity,
      section: p.section ?? '',
      category: p.category ?? '',
      accessible: p.accessible ? '1' : '',
      accessibleWhenOthersGone: p.accessibleWhenOthersGone ? '1' : '',
    };
    // the prefix of the event's seat lock keys (holds/seat-lock.ts): the script sees which seats are locked
    const keys = { seatLockPrefix: this.locks.lockKey(this.store.layout.seatLockKeys(p.eventId, [''])[0]) };
    const ack = this.acks.before(this.store.scripts.slotKeyOf(p.eventId));
    const pick = () => this.store.scripts.onEvent('holdBestAvailable', p.eventId, args, keys);
    let reply = (await pick()) as ScriptReply;
    if (reply[0] === 'NO_INDEX') {
      const built = await this.buildIndex(p.eventId, layout());
      if (built !== 'OK') {
        return { ok: false, error: 'EVENT_ENDED' };
      }
      reply = (await pick()) as ScriptReply;
    }
    const result = toBestAvailableResult(p.eventId, reply);
    if (result.ok) {
      try {
        await ack.confirm('hold');
      } catch (e) {
        // not on enough replicas: no hold id goes out, so the hold is released at once (HoldStore.createHold)
        await this.store.scripts
          .onEvent('holdRelease', p.eventId, {
            hid,
            userId: p.userId,
            fencingToken: result.hold.fencingToken,
          })
          .catch(() => undefined);
        throw e;
      }
      // the shard's sweep is due when this hold is, unless the shard had work due no sooner (HoldStore.wakeFor)
      if (dueSooner(reply)) {
        void this.redis
          .zadd(WAKE_KEY, 'LT', result.hold.expireAtMs, this.store.layout.shardOf(p.eventId))
          .catch(() => undefined);
      }
    }
    return result;
  }

  /**
   * Builds the event's free-seat index and keeps its orphan rule with it, unless Redis has them (one
   * read): at each instance's first load of the event (CatalogueService), so the rule holds from the
   * event's first hold, and after Redis lost them.
   */
  async ensureIndex(eventId: string, layout: AllocationLayout): Promise<'OK' | 'EVENT_ENDED'> {
    if ((await this.redis.hget(this.store.layout.eventKeys(eventId).meta, 'ax')) === '1') {
      return 'OK';
    }
    return this.buildIndex(eventId, layout);
  }

  /**
   * Builds the event's free-seat index (lua/allocation-build.lua), a few thousand seats per call so no
   * call holds Redis long; rows built already are kept. 'OK', or 'EVENT_ENDED' (nothing written).
   */
  async buildIndex(eventId: string, layout: AllocationLayout): Promise<'OK' | 'EVENT_ENDED'> {
    const calls: (string | number)[][] = [[]];
    let seats = 0;
    for (const r of layout.rows) {
      if (seats + r.seats > BUILD_SEATS_PER_CALL && calls[calls.length - 1].length > 0) {
        calls.push([]);
        seats = 0;
      }
      calls[calls.length - 1].push(r.rowKey, r.seats, r.rank, r.section, r.category, r.access);
      seats += r.seats;
    }
    for (let i = 0; i < calls.length; i++) {
      const last = i === calls.length - 1 ? '1' : '';
      const reply = (await this.store.scripts.onEvent('allocationBuild', eventId, {
        orphanRule: layout.orphanRule,
        complete: last,
        rows: calls[i],
      })) as ScriptReply;
      if (reply[0] !== 'OK') {
        return 'EVENT_ENDED';
      }
    }
    return 'OK';
  }
}

function toBestAvailableResult(eventId: string, reply: ScriptReply): BestAvailableResult {
  switch (reply[0]) {
    case 'OK':
      return { ok: true, hold: toHoldRecord(eventId, reply[1]) };
    case 'SEATS_UNAVAILABLE':
      return {
        ok: false,
        error: 'SEATS_UNAVAILABLE',
        reason: reply[1] as AllocationShortage,
        free: Number(reply[2]),
      };
    case 'HOLD_LIMIT_EXCEEDED':
      return {
        ok: false,
        error: 'HOLD_LIMIT_EXCEEDED',
        heldSeats: Number(reply[1]),
        limit: Number(reply[2]),
      };
    case 'EVENT_ENDED':
      return { ok: false, error: 'EVENT_ENDED' };
    case 'POLICY_CHANGED':
      return { ok: false, error: 'POLICY_CHANGED', current: String(reply[1]) };
    default: {
      const refusal = queueRefusalOf(reply);
      if (refusal) {
        return refusal;
      }
      throw new Error(`holdBestAvailable: unexpected reply ${String(reply[0])}`);
    }
  }
}
