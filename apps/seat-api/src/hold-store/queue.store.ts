import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomInt } from 'node:crypto';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import type { QueueOrder } from '@app/contracts';
import { REDIS_CLIENT, ReplicaAcks } from '@app/redis';
import { HoldIds } from './hold-ids';
import { QUEUES_KEY } from './hold-keys';
import { HoldStore } from './hold.store';
import { QUEUE_FIGURES } from './lua/manifest';
import { StaffAction, staffActionArguments } from './staff-action';

const ENTRY_ID = /^([0-9a-f]{32})([A-Za-z0-9_-]{12})$/;
/** Numbers one step of a queue looks at, at most (queue-tick.lua): bounds how long it keeps Redis busy. */
const MAX_SCAN_PER_STEP = 2000;

/** An event's queue as staff set it up (queue-configure.lua). Times epoch ms. */
export interface QueueSettings {
  opensAtMs: number;
  salesStartAtMs: number;
  order: QueueOrder;
  admitPerMinute: number;
  maxActiveShoppers: number;
  passTtlMs: number;
  idleEntryTtlMs: number;
}

/** The queue's settings and figures (lua/queue.lua q_figures), as one step of it left them. */
export interface QueueFigures extends QueueSettings {
  paused: boolean;
  /** The last number given; those not yet passed are waiting. */
  lastNumber: number;
  /** Numbers passed: admitted, or passed over (left, skipped as idle). */
  servingNumber: number;
  activeShoppers: number;
  /** Shoppers admitted since the queue was set up, and entries passed over as idle. */
  admitted: number;
  skipped: number;
  /** Entries with a place not yet reached (left ones not counted). */
  waiting: number;
}

export type QueueEntryState = 'PREQUEUE' | 'WAITING' | 'ADMITTED' | 'DONE' | 'LEFT' | 'SKIPPED';

export interface QueueEntryRecord {
  entryId: string;
  eventId: string;
  state: QueueEntryState;
  number: number;
  /** When an admitted entry's pass runs out (epoch ms); 0 before admission. */
  passExpiresAtMs: number;
}

/** A staff change of a running queue (queue-control.lua). */
export type QueueControl =
  | { mode: 'pause' | 'resume' | 'close' }
  | { mode: 'pace'; admitPerMinute?: number; maxActiveShoppers?: number }
  | { mode: 'admit'; count: number };

export type QueueChangeResult =
  | { ok: true; figures: QueueFigures | null }
  | { ok: false; error: 'ACTION_CANCELLED' | 'QUEUE_OPEN' | 'NO_QUEUE' | 'EVENT_ENDED' };

/**
 * The on-sale queues of events, in Redis beside each event's holds (lua/queue.lua: the keys, the states,
 * the rules), so the hold scripts gate holds and count active shoppers in the very step that makes or ends
 * a hold. An entry's id is derived from its event and user (one place per user and event, whatever races),
 * and carries its event as a hold id does (`<event uuid without dashes><12 base64url chars>`).
 */
@Injectable()
export class QueueStore {
  private readonly acks: ReplicaAcks;
  private readonly ledgerTtlMs: number;

  constructor(
    private readonly store: HoldStore,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: AppConfig,
  ) {
    this.acks = new ReplicaAcks(redis, config.replicaAck);
    this.ledgerTtlMs = config.holds.retentionSeconds * 1000;
  }

  /** The public id of `userId`'s entry in the event's queue. */
  entryIdOf(eventId: string, userId: string): string {
    const digest = createHash('sha256').update(`${eventId.toLowerCase()}\n${userId}`).digest('base64url');
    return HoldIds.prefixOf(eventId) + digest.slice(0, 12);
  }

  /** The event and the in-event part of an entry id, or null for anything that is not one. */
  parseEntryId(entryId: string): { eventId: string; entry: string } | null {
    const m = ENTRY_ID.exec(entryId);
    if (!m) {
      return null;
    }
    const h = m[1];
    const eventId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    return { eventId, entry: m[2] };
  }

  /** The events with a queue (QUEUES_KEY), which every instance steps. */
  async queuedEvents(): Promise<string[]> {
    return this.redis.smembers(QUEUES_KEY);
  }

  /** Drops an event from QUEUES_KEY (its queue is gone: closed, or removed with the event). */
  async forget(eventId: string): Promise<void> {
    await this.redis.srem(QUEUES_KEY, eventId);
  }

  /** Sets up (or, before it opens, replaces) the event's queue, as staff action `action`. */
  async configure(eventId: string, s: QueueSettings, action: StaffAction): Promise<QueueChangeResult> {
    // listed first: a step that meets it before the queue exists waits for it (QueueAdmission)
    await this.redis.sadd(QUEUES_KEY, eventId);
    const ack = this.acks.before(this.store.scripts.slotKeyOf(eventId));
    const reply = (await this.store.scripts.onEvent(
      'queueConfigure',
      eventId,
      {
        opensAt: s.opensAtMs,
        salesStartAt: s.salesStartAtMs,
        order: s.order,
        admitPerMinute: s.admitPerMinute,
        maxActiveShoppers: s.maxActiveShoppers,
        passTtlMs: s.passTtlMs,
        idleEntryTtlMs: s.idleEntryTtlMs,
        ...staffActionArguments(action, this.ledgerTtlMs),
      },
      this.ledger(eventId),
    )) as [string, unknown[]?];
    return this.changed(reply, ack, 'queue-configure');
  }

  /** Pauses, resumes, paces or closes the event's queue, or lets shoppers in now, as staff action `action`. */
  async control(eventId: string, c: QueueControl, action: StaffAction): Promise<QueueChangeResult> {
    const ack = this.acks.before(this.store.scripts.slotKeyOf(eventId));
    const reply = (await this.store.scripts.onEvent(
      'queueControl',
      eventId,
      {
        mode: c.mode,
        admitPerMinute: (c.mode === 'pace' && c.admitPerMinute) || '',
        maxActiveShoppers: (c.mode === 'pace' && c.maxActiveShoppers) || '',
        count: c.mode === 'admit' ? c.count : 0,
        ...staffActionArguments(action, this.ledgerTtlMs),
      },
      this.ledger(eventId),
    )) as [string, unknown[]?];
    const result = await this.changed(reply, ack, 'queue-control');
    if (result.ok && c.mode === 'close') {
      await this.forget(eventId);
    }
    return result;
  }

  /** `userId` joins (or, having left or been passed over, joins again); `created`: this call made the place. */
  async join(
    eventId: string,
    userId: string,
  ): Promise<
    | { ok: true; created: boolean; entry: QueueEntryRecord }
    | { ok: false; error: 'NO_QUEUE' }
    | { ok: false; error: 'NOT_OPEN'; opensAtMs: number }
  > {
    const entry = this.entryIdOf(eventId, userId).slice(32);
    // an unbiased uniform draw for the shuffle of the places given before the start (queue-join.lua)
    const random = randomInt(0, 2 ** 47) / 2 ** 47;
    const ack = this.acks.before(this.store.scripts.slotKeyOf(eventId));
    const reply = (await this.store.scripts.onEvent('queueJoin', eventId, { entry, userId, random })) as [
      string,
      unknown,
      unknown?,
    ];
    if (reply[0] === 'NO_QUEUE') {
      return { ok: false, error: 'NO_QUEUE' };
    }
    if (reply[0] === 'NOT_OPEN') {
      return { ok: false, error: 'NOT_OPEN', opensAtMs: Number(reply[1]) };
    }
    if (Number(reply[1]) === 1) {
      await ack.confirm('queue-join');
    }
    return { ok: true, created: Number(reply[1]) === 1, entry: toEntry(eventId, reply[2]) };
  }

  /** `userId`'s entry (null when there is none, or it is someone else's) and its pass, once issued. */
  async entry(
    entryId: string,
    userId: string,
  ): Promise<{ entry: QueueEntryRecord; pass: string | null } | null> {
    const id = this.parseEntryId(entryId);
    if (!id) {
      return null;
    }
    const reply = (await this.store.scripts.onEvent('queueEntry', id.eventId, {
      entry: id.entry,
      userId,
    })) as [string, unknown?, string?];
    if (reply[0] !== 'OK') {
      return null;
    }
    return { entry: toEntry(id.eventId, reply[1]), pass: reply[2] || null };
  }

  /**
   * Keeps the pass signed for an admitted entry, unless it has one: answers the entry's pass, or null when
   * it is no longer admitted under that expiry.
   */
  async keepPass(entryId: string, pass: string, passExpiresAtMs: number): Promise<string | null> {
    const id = this.parseEntryId(entryId);
    if (!id) {
      return null;
    }
    const ack = this.acks.before(this.store.scripts.slotKeyOf(id.eventId));
    const kept = (await this.store.scripts.onEvent('queuePass', id.eventId, {
      entry: id.entry,
      pass,
      passExpiresAt: passExpiresAtMs,
    })) as string;
    if (kept) {
      await ack.confirm('queue-pass');
    }
    return kept || null;
  }

  /** `userId` leaves; null when the entry is not theirs or not there. */
  async leave(entryId: string, userId: string): Promise<QueueEntryRecord | null> {
    const id = this.parseEntryId(entryId);
    if (!id) {
      return null;
    }
    const reply = (await this.store.scripts.onEvent('queueLeave', id.eventId, {
      entry: id.entry,
      userId,
    })) as [string, unknown?];
    return reply[0] === 'OK' ? toEntry(id.eventId, reply[1]) : null;
  }

  /**
   * One step of the event's queue (queue-tick.lua): passes that ran out end, the next shoppers are admitted.
   * Null when the event has no queue. `waitsMs`: how long each shopper admitted now waited since joining.
   */
  async step(eventId: string): Promise<{ figures: QueueFigures; waitsMs: number[] } | null> {
    const reply = (await this.store.scripts.onEvent('queueTick', eventId, {
      maxScan: MAX_SCAN_PER_STEP,
    })) as [string, unknown[]?, ...unknown[]];
    if (reply[0] !== 'OK') {
      return null;
    }
    const waitsMs = reply.slice(2).map(Number);
    if (waitsMs.length > 0) {
      // its ShopperAdmitted records are in the shard's outbox: the relay publishes them at its next round
      this.store.scripts.wake(eventId);
    }
    return { figures: toFigures(reply[1]!), waitsMs };
  }

  private async changed(
    reply: [string, unknown[]?],
    ack: { confirm(action: string): Promise<void> },
    action: string,
  ): Promise<QueueChangeResult> {
    if (reply[0] !== 'OK') {
      return { ok: false, error: reply[0] as 'ACTION_CANCELLED' | 'QUEUE_OPEN' | 'NO_QUEUE' | 'EVENT_ENDED' };
    }
    await ack.confirm(action);
    const figures = reply[1] ?? [];
    return { ok: true, figures: figures.length > 0 ? toFigures(figures) : null };
  }

  private ledger(eventId: string) {
    return { staffLedger: this.store.layout.staffLedgerKey(eventId) };
  }
}

function toFigures(raw: unknown[]): QueueFigures {
  const f = Object.fromEntries(QUEUE_FIGURES.map((name, i) => [name, raw[i]])) as Record<
    (typeof QUEUE_FIGURES)[number],
    unknown
  >;
  const n = (v: unknown) => Number(v) || 0;
  return {
    opensAtMs: n(f.opens),
    salesStartAtMs: n(f.starts),
    order: String(f.order) as QueueOrder,
    admitPerMinute: n(f.rate),
    maxActiveShoppers: n(f.cap),
    passTtlMs: n(f.passMs),
    idleEntryTtlMs: n(f.idleMs),
    paused: n(f.paused) === 1,
    lastNumber: n(f.last),
    servingNumber: n(f.serving),
    activeShoppers: n(f.active),
    admitted: n(f.admitted),
    skipped: n(f.skipped),
    waiting: n(f.queued),
  };
}

function toEntry(eventId: string, raw: unknown): QueueEntryRecord {
  const [entryId, state, number, pass] = raw as [string, QueueEntryState, number, number];
  return { entryId, eventId, state, number: Number(number), passExpiresAtMs: Number(pass) || 0 };
}
