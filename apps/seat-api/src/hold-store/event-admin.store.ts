import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { OrphanRule } from '@app/database';
import { REDIS_CLIENT, ReplicaAcks } from '@app/redis';
import Redis from 'ioredis';
import { HoldStore } from './hold.store';
import { HoldStatus } from './hold.types';

/** A live hold of an event, as EventAdminStore.liveHolds lists it. */
export interface LiveHold {
  holdId: string;
  userId: string;
  status: Extract<HoldStatus, 'ACTIVE' | 'CONFIRMING'>;
  seatIds: string[];
}

/** Due entries one liveHolds call reads at most (whole hold buckets of about 50-100 each). */
const LIVE_HOLDS_PAGE = 500;

/**
 * What an admin's change of an event needs of the hold store, beside the holds themselves:
 *   - the event's policy version (`pv` in its meta hash, hold-keys.ts): every hold is made only under the
 *     version its caller checked it against (lua/create-hold.lua), so raising it before a change of the
 *     event's settings answers makes every instance's later hold see the change, atomically with the hold;
 *   - its live holds, to release them one by one when the event is cancelled.
 * Rare calls (admin changes, and an instance's first hold of an event): one small script each.
 */
@Injectable()
export class EventAdminStore {
  private readonly acks: ReplicaAcks;

  constructor(
    private readonly store: HoldStore,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: AppConfig,
  ) {
    this.acks = new ReplicaAcks(redis, config.replicaAck);
  }

  /** The policy version holds of this event are checked against now; null when Redis has none. */
  async policyVersion(eventId: string): Promise<number | null> {
    const pv = await this.redis.hget(this.store.layout.eventKeys(eventId).meta, 'pv');
    return pv === null ? null : Number(pv);
  }

  /**
   * Stores `version` unless Redis has it or a later one, with the orphan rule of that version (meta `or`,
   * which holds by seat ids check: so a hold made under a version is checked against its rule); returns
   * the version Redis has afterwards. Where Redis has no version at all it is stored only `afterRepair`
   * (the event's booked and blocked seats were just put back: lua/policy-version.lua), else the answer is
   * 'UNREPAIRED' and nothing is written. With REDIS_WAIT_REPLICAS, a raise is confirmed on the replicas
   * before it returns: a failover must not bring back the version a change replaced
   * (ReplicaAckTimeoutError otherwise).
   */
  async raisePolicyVersion(
    eventId: string,
    version: number,
    orphanRule: OrphanRule,
    afterRepair = false,
  ): Promise<number | 'UNREPAIRED'> {
    const ack = this.acks.before(this.store.scripts.slotKeyOf(eventId));
    const reply = await this.store.scripts.onEvent('eventPolicyVersion', eventId, {
      mode: 'raise',
      version,
      orphanRule,
      afterRepair: afterRepair ? '1' : '',
    });
    if (reply === 'UNREPAIRED') {
      return reply;
    }
    const stored = Number(reply);
    if (stored === version) {
      await ack.confirm('policy');
    }
    return stored;
  }

  /** Forgets the version if it is `version` (a change that did not commit): the next hold reloads it. */
  async dropPolicyVersion(eventId: string, version: number): Promise<void> {
    await this.store.scripts.onEvent('eventPolicyVersion', eventId, {
      mode: 'drop',
      version,
      orphanRule: '',
      afterRepair: '',
    });
  }

  /** Every live hold of the event, a page at a time (read without locks: each release checks again). */
  async *liveHolds(eventId: string): AsyncGenerator<LiveHold[]> {
    for (let bucket = 0; bucket >= 0;) {
      const [next, holds] = (await this.store.scripts.onEvent('eventLiveHolds', eventId, {
        fromBucket: bucket,
        maxEntries: LIVE_HOLDS_PAGE,
      })) as [number, [string, string, LiveHold['status'], string[]][]];
      yield holds.map(([holdId, userId, status, seatIds]) => ({ holdId, userId, status, seatIds }));
      bucket = Number(next);
    }
  }
}
