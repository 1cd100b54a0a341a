import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { REDIS_CLIENT, ReplicaAcks } from '@app/redis';
import Redis from 'ioredis';
import { CreateHoldRequest, createHoldArguments } from './create-hold-request';
import { HoldIds } from './hold-ids';
import { HoldLayout, WAKE_KEY } from './hold-keys';
import { dueSooner, ScriptReply, toCreateResult, toHoldRecord, toStoreResult } from './hold-replies';
import { EventScriptArgs, HoldScripts } from './hold-scripts';
import { CreateHoldResult, HoldRecord, SeatConflict, StoreResult, SweepResult } from './hold.types';
import { ShardSweep } from './shard-sweep';
import { assertWholeNumbers } from './store-arguments';

/** The scripts that change an existing hold (HoldStore.change). */
type HoldChangeScript =
  | 'holdExtend'
  | 'holdRelease'
  | 'holdBeginConfirm'
  | 'holdFinishConfirm'
  | 'holdAbandonConfirm'
  | 'holdSetPricing';

/**
 * The seat holds of every event, in Redis, laid out on shards (hold-keys.ts). Each method is one Lua
 * script (one round trip, hold-scripts.ts) over the keys of one event, its shard's outbox and indexes
 * and the fencing counter of its seat locks (one hash tag: the shard's), so every multi-step change, its
 * record for seat-map readers included, is atomic and works on Redis Cluster. Nothing else in the
 * service touches these keys.
 *
 * With REDIS_WAIT_REPLICAS > 0 a change (hold, extend, release, each confirm step) returns only once
 * that many replicas have it (ReplicaAcks: Redis WAIT), else it throws ReplicaAckTimeoutError (503
 * REPLICAS_UNAVAILABLE): an answer given to a client then survives the master's death.
 */
@Injectable()
export class HoldStore implements OnModuleInit {
  private readonly logger = new Logger('HoldStore');
  readonly layout: HoldLayout;
  readonly scripts: HoldScripts;
  private readonly sweep: ShardSweep;
  private readonly acks: ReplicaAcks;
  /** How long an event's staff-action ledger is kept (StaffHoldStore's: the retention of an ended hold). */
  private readonly ledgerTtlMs: number;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: AppConfig,
    locks: DistributedLockService,
  ) {
    this.layout = new HoldLayout(config.holds.shards);
    this.scripts = new HoldScripts(
      redis,
      this.layout,
      locks,
      config.holds.retentionSeconds * 1000,
      config.expiry.statusStreamEnabled,
    );
    this.sweep = new ShardSweep(redis, this.layout, this.scripts, config.holds.eventRetentionSeconds * 1000);
    this.acks = new ReplicaAcks(redis, config.replicaAck);
    this.ledgerTtlMs = config.holds.retentionSeconds * 1000;
  }

  /**
   * Loads the hold functions on every Redis master before traffic (hold-scripts.ts). A Redis that is down
   * now does not stop the boot: its first call loads them.
   */
  async onModuleInit(): Promise<void> {
    try {
      await this.scripts.load();
    } catch (e) {
      this.logger.warn(`hold functions not loaded at boot (loaded at the first call): ${String(e)}`);
    }
  }

  /**
   * Whether a change's script is followed by more store work (a replica WAIT, and an undo if it fails):
   * a caller may then not let its seat lock go with the script (createHold's letGoOfLock).
   */
  get confirmsOnReplicas(): boolean {
    return this.acks.enabled;
  }

  /** Sends the hold script synchronously, before the returned promise's first wait (a pipelined section relies on it). */
  async createHold(p: CreateHoldRequest): Promise<CreateHoldResult> {
    const { hid } = this.ids(p.holdId, p.eventId);
    const ack = this.acks.before(this.scripts.slotKeyOf(p.eventId));
    const reply = (await this.scripts.onEvent(
      'holdCreate',
      p.eventId,
      createHoldArguments(p, hid, this.ledgerTtlMs),
      {
        staffLedger: this.layout.staffLedgerKey(p.eventId),
        seatLockKeys: p.lock?.keys ?? [],
      },
    )) as ScriptReply;
    const result = toCreateResult(p.eventId, reply);
    if (result.ok) {
      try {
        await ack.confirm('hold');
      } catch (e) {
        // not confirmed (too few replicas, or the WAIT itself failed): no hold id goes out (with the
        // hold's own token: a pipelined section's was drawn in the script). A staff hold is kept: its
        // ledger says it was made, and its audited action answers it again from there (AuditedActions)
        if (p.action === undefined) {
          await this.undoCreate(p.eventId, hid, p.userId, result.hold.fencingToken);
        }
        throw e;
      }
      if (dueSooner(reply)) {
        this.wakeFor(result.hold);
      }
    }
    return result;
  }

  async getHold(holdId: string): Promise<HoldRecord | null> {
    const id = HoldIds.parse(holdId);
    if (!id) {
      return null;
    }
    const reply = (await this.scripts.onEvent('holdRead', id.eventId, { hid: id.hid })) as ScriptReply;
    return reply[0] === 'OK' ? toHoldRecord(id.eventId, reply[1]) : null;
  }

  async extendHold(p: {
    holdId: string;
    userId: string;
    ttlMs: number;
    maxExtensions: number;
    fencingToken: number;
    /**
     * Names the request (at most 64 chars): the same extension asked again under the same name (a retry
     * of one whose answer was lost or 503) answers the hold as it left it and spends no extension.
     */
    requestKey?: string;
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
    assertWholeNumbers('extendHold', { ttlMs: p.ttlMs }, 1);
    // HOLD_MAX_EXTENSIONS=0 turns extensions off: the script then answers EXTENSION_LIMIT_REACHED
    assertWholeNumbers('extendHold', { maxExtensions: p.maxExtensions, fencingToken: p.fencingToken }, 0);
    const requestKey = p.requestKey ?? '';
    if (requestKey.length > 64) {
      throw new RangeError('extendHold: requestKey is kept in the hold record: at most 64 chars');
    }
    return this.change('holdExtend', 'extend', p.holdId, (hid) => ({
      hid,
      userId: p.userId,
      ttlMs: p.ttlMs,
      maxExtensions: p.maxExtensions,
      fencingToken: p.fencingToken,
      requestKey,
    }));
  }

  releaseHold(p: {
    holdId: string;
    userId: string;
    fencingToken: number;
  }): Promise<StoreResult<'HOLD_NOT_FOUND' | 'HOLD_CONFIRMED' | 'STALE_FENCING_TOKEN'>> {
    return this.change('holdRelease', 'release', p.holdId, (hid) => ({
      hid,
      userId: p.userId,
      fencingToken: p.fencingToken,
    }));
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
    return this.change('holdBeginConfirm', 'confirm', p.holdId, (hid) => ({
      hid,
      userId: p.userId,
      orderId: p.orderId,
      fencingToken: p.fencingToken,
      confirmTimeoutMs: p.confirmTimeoutMs,
    }));
  }

  /** `price`: what the booking was sold for (JSON), told with its HoldConfirmed; '' for an unpriced hold. */
  finishConfirm(p: {
    holdId: string;
    orderId: string;
    price?: string;
  }): Promise<StoreResult<'HOLD_NOT_FOUND' | 'HOLD_NOT_ACTIVE'>> {
    return this.change('holdFinishConfirm', 'confirm-finish', p.holdId, (hid) => ({
      hid,
      orderId: p.orderId,
      price: p.price ?? '',
    }));
  }

  /**
   * Sets what `userId`'s ACTIVE hold is priced by (its ticket types, its promo code) to `pricing`, if it is
   * still `expected` (lua/set-hold-pricing.lua): PRICING_CHANGED when another change came first.
   */
  setPricing(p: {
    holdId: string;
    userId: string;
    expected: string;
    pricing: string;
  }): Promise<StoreResult<'HOLD_NOT_FOUND' | 'HOLD_NOT_ACTIVE' | 'PRICING_CHANGED'>> {
    return this.change('holdSetPricing', 'pricing', p.holdId, (hid) => ({
      hid,
      userId: p.userId,
      expected: p.expected,
      pricing: p.pricing,
    }));
  }

  /** Gives up the confirm attempt begun with `fencingToken` (only that one; see ABANDON_CONFIRM). */
  abandonConfirm(p: {
    holdId: string;
    fencingToken?: number;
  }): Promise<StoreResult<'HOLD_NOT_FOUND' | 'HOLD_NOT_ACTIVE'>> {
    return this.change('holdAbandonConfirm', 'confirm-abandon', p.holdId, (hid) => ({
      hid,
      fencingToken: p.fencingToken ?? '',
    }));
  }

  /**
   * Which of these seats are taken right now, read without any lock (lua/seat-conflicts.lua): what a hold
   * of them would be refused with, by the same rule, true at the moment of the read.
   */
  async seatConflicts(eventId: string, seatIds: readonly string[]): Promise<SeatConflict[]> {
    const reply = (await this.scripts.onEvent('seatConflicts', eventId, { seatIds })) as [
      string,
      SeatConflict['reason'],
    ][];
    return reply.map(([seatId, reason]) => ({ seatId, reason }));
  }

  /**
   * Re-marks seats booked in PostgreSQL (repairs a Redis that lost data). Returns how many changed. Not
   * waited for on replicas: PostgreSQL has the bookings, and the repair runs again wherever Redis lost it.
   */
  async markBooked(eventId: string, seatIds: string[]): Promise<number> {
    let changed = 0;
    for (let i = 0; i < seatIds.length; i += 1000) {
      const chunk = seatIds.slice(i, i + 1000);
      changed += Number(await this.scripts.onEvent('holdMarkBooked', eventId, { seatIds: chunk }));
    }
    return changed;
  }

  /**
   * Repairs the event's general-admission areas (lua/areas-repair.lua): each area's capacity and the places
   * PostgreSQL has booked and blocked in it; its held places are counted from the live holds. Returns how
   * many areas changed.
   */
  async repairAreas(
    eventId: string,
    areas: { name: string; capacity: number; booked: number; blocked: number }[],
  ): Promise<number> {
    const flat = areas.flatMap((a) => [a.name, a.capacity, a.booked, a.blocked]);
    return Number(await this.scripts.onEvent('areasRepair', eventId, { areas: flat }));
  }

  /**
   * The event's general-admission areas as the hold store counts them: name -> capacity, held, booked,
   * blocked (held includes holds that ran out until they are expired). Empty when the event has none.
   */
  async areaCounts(
    eventId: string,
  ): Promise<Map<string, { capacity: number; held: number; booked: number; blocked: number }>> {
    const raw = await this.scripts.redis.hgetall(this.layout.areasKey(eventId));
    const out = new Map<string, { capacity: number; held: number; booked: number; blocked: number }>();
    for (const [name, v] of Object.entries(raw)) {
      const [capacity, held, booked, blocked] = v.split('|').map(Number);
      out.set(name, { capacity, held, booked, blocked });
    }
    return out;
  }

  /** One bounded sweep step for one shard (ShardSweep.step). */
  sweepShard(shard: number, batchSize: number): Promise<SweepResult> {
    return this.sweep.step(shard, batchSize);
  }

  /** Enters the event with its retention, past which its keys are removed (ShardSweep.registerEvent). */
  registerEvent(eventId: string, startsAt: Date): Promise<void> {
    return this.sweep.registerEvent(eventId, startsAt);
  }

  /** Whether the event's keys were removed past its retention (ShardSweep.eventRemoved). */
  eventRemoved(eventId: string): Promise<boolean> {
    return this.sweep.eventRemoved(eventId);
  }

  /** The outbox stream key of a shard, without the client's keyPrefix (ioredis adds it). */
  outboxKey(shard: number): string {
    return this.layout.shardKeys(shard).outbox;
  }

  /** The outbox stream key of the shard an event belongs to. */
  eventOutboxKey(eventId: string): string {
    return this.outboxKey(this.layout.shardOf(eventId));
  }

  /**
   * A script that changes an existing hold (its arguments built around the hold's hid); a change it made
   * (OK) is confirmed on the replicas.
   */
  private async change<E extends string, N extends HoldChangeScript>(
    script: N,
    action: string,
    holdId: string,
    args: (hid: string) => EventScriptArgs<N>,
  ): Promise<StoreResult<E>> {
    const id = HoldIds.parse(holdId);
    if (!id) {
      return { ok: false, error: 'HOLD_NOT_FOUND' as E };
    }
    const ack = this.acks.before(this.scripts.slotKeyOf(id.eventId));
    const reply = (await this.scripts.onEvent(script, id.eventId, args(id.hid))) as ScriptReply;
    // Refusals are not waited for: they acknowledge no change of this call.
    if (reply[0] === 'OK') {
      await ack.confirm(action);
    }
    const result = toStoreResult<E>(id.eventId, reply);
    // a confirm's deadline, or a hold given back its expireAt, may come before anything its shard had due
    if (result.ok && (script === 'holdBeginConfirm' || script === 'holdAbandonConfirm')) {
      this.wakeFor(result.hold);
    }
    return result;
  }

  /**
   * A new hold calls it only when its script lowered its event's entry in the shard's due index
   * (dueSooner): otherwise an entry of the shard is due no later than this hold, and the wake index is
   * already at or before that entry (it was lowered with it, or set from the shard's heads by a sweep).
   * Lowers the hold's shard in the wake index (hold-keys.ts, WAKE_KEY) to when the hold is next due (its
   * expireAt, or its confirm deadline): the shard's owner sweeps it then, without polling every shard.
   * Not waited for: it only ever brings a sweep forward, and one that is lost is made up by the sweeper's
   * own round of every shard it owns.
   */
  private wakeFor(hold: HoldRecord): void {
    const at = hold.status === 'CONFIRMING' ? hold.confirmDeadlineMs : hold.expireAtMs;
    if (at !== null) {
      void this.redis.zadd(WAKE_KEY, 'LT', at, this.layout.shardOf(hold.eventId)).catch(() => undefined);
    }
  }

  /**
   * A hold the replicas did not confirm is answered 503 with no hold id: left in place, it would keep its
   * seats from everyone (its own user's retry included: a new hold, refused SEATS_UNAVAILABLE) until its
   * ttl ended. Released at once instead (with the lock's token, still ours), so the seats are free again
   * on the master and the retry can take them. Not waited for either: if this release is lost in a
   * failover that kept the hold, the hold ends with its ttl, as any unused hold.
   */
  private async undoCreate(eventId: string, hid: string, userId: string, fencingToken: number) {
    await this.scripts.onEvent('holdRelease', eventId, { hid, userId, fencingToken }).catch(() => {
      // Redis failed too: the first error is the answer; the hold ends with its ttl
    });
  }

  private ids(holdId: string, eventId: string): { hid: string } {
    const id = HoldIds.parse(holdId);
    if (!id || id.eventId !== eventId.toLowerCase()) {
      throw new Error(`hold id ${holdId} does not belong to event ${eventId}`);
    }
    return id;
  }
}
