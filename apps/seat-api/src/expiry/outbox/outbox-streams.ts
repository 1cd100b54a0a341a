import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import Redis from 'ioredis';
import { REDIS_CLIENT } from '@app/redis';
import { groupsRecreated, relayConsumersDeleted } from '../expiry.metrics';
import type { OutboxEntry } from './outbox-record';
import {
  CREATE_GROUP,
  DELETE_CONSUMER_IF_IDLE,
  NEXT_BATCH,
  REAP_CONSUMERS,
  SETTLE,
} from './outbox-stream.lua';

/** The consumer group every relay instance reads the outbox streams with. */
export const RELAY_GROUP = 'relay';

const isNoGroup = (e: unknown) => e instanceof Error && e.message.startsWith('NOGROUP');

/**
 * This instance's side of the outbox streams' consumer group: next batch, settle, and the life of its
 * consumer name. Redis only: every error it throws is a Redis error.
 *
 * A stream can lose its group while the process lives (Redis restarted without persistence, FLUSHALL,
 * eviction: the sweeper's next XADD recreates the stream alone). Every group command therefore runs
 * through `inGroup`, which recreates the group on NOGROUP, from '0' so the records written meanwhile are
 * relayed, and runs the command again.
 */
@Injectable()
export class OutboxStreams {
  private readonly logger = new Logger('OutboxRelay');
  /** Unique per process, so a restarted instance never inherits (or deletes) another one's records. */
  readonly consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  /** Streams whose group this instance created or used: where its consumer name may exist. */
  private readonly joined = new Set<string>();

  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  /**
   * The next batch to publish, oldest first: records read and never acknowledged (by a relay that died or
   * lost the shard, or by this one when a publish failed) become ours and come first, then new ones.
   * One script, one round trip (NEXT_BATCH).
   */
  async next(key: string, count: number): Promise<OutboxEntry[]> {
    const entries = ((await this.inGroup(key, () =>
      this.redis.eval(NEXT_BATCH, 1, key, RELAY_GROUP, this.consumer, count),
    )) ?? []) as OutboxEntry[];
    // a pending entry deleted meanwhile comes back without fields (Redis 6.2): nothing to publish, just acknowledge it
    const gone = entries.filter(([, fields]) => !hasFields(fields)).map(([id]) => id);
    if (gone.length > 0) {
      await this.settle(key, gone, []);
    }
    return entries.filter(([, fields]) => hasFields(fields));
  }

  /**
   * After Kafka acknowledged `ids`: acknowledges and deletes them, first moving the `malformed` ones
   * (a subset) unchanged to `<outbox>:malformed` (same hash tag) for a human to look at.
   */
  async settle(key: string, ids: string[], malformed: string[]): Promise<void> {
    const rest = ids.filter((id) => !malformed.includes(id));
    await this.redis.eval(
      SETTLE,
      2,
      key,
      `${key}:malformed`,
      RELAY_GROUP,
      malformed.length,
      ...malformed,
      ...rest,
    );
  }

  /**
   * Deletes the consumers of instances that are gone: no pending record and idle for `minIdleMs`.
   * Those that still own records are left for XAUTOCLAIM, then reaped on a later pass.
   */
  async reap(key: string, minIdleMs: number): Promise<string[]> {
    const deleted = (await this.redis.eval(REAP_CONSUMERS, 1, key, RELAY_GROUP, minIdleMs, this.consumer)) as
      string[] | null;
    if (deleted && deleted.length > 0) {
      relayConsumersDeleted.inc({ reason: 'reaped' }, deleted.length);
    }
    return deleted ?? [];
  }

  /**
   * At shutdown: deletes this instance's consumer from every stream it used, unless it still has
   * pending records (a publish in flight failed): those stay, for another instance to claim.
   */
  async leave(): Promise<void> {
    const results = await Promise.allSettled(
      [...this.joined].map((key) =>
        this.redis.eval(DELETE_CONSUMER_IF_IDLE, 1, key, RELAY_GROUP, this.consumer),
      ),
    );
    const count = (test: (r: PromiseSettledResult<unknown>) => boolean) => results.filter(test).length;
    relayConsumersDeleted.inc(
      { reason: 'shutdown' },
      count((r) => r.status === 'fulfilled' && r.value === 1),
    );
    const owning = count((r) => r.status === 'fulfilled' && r.value === -1);
    const failed = count((r) => r.status === 'rejected');
    if (owning > 0 || failed > 0) {
      this.logger.warn(
        `relay consumer ${this.consumer} left in ${owning + failed} stream(s) ` +
          `(${owning} with pending records for another instance to claim, ${failed} Redis errors); reaped later`,
      );
    }
    this.joined.clear();
  }

  private async inGroup<T>(key: string, command: () => Promise<T>): Promise<T> {
    if (!this.joined.has(key)) {
      await this.createGroup(key);
    }
    try {
      return await command();
    } catch (e) {
      if (!isNoGroup(e)) {
        throw e;
      }
      this.logger.warn(
        `outbox stream ${key} had lost its consumer group (Redis lost data?): recreated, relaying from its first record`,
      );
      groupsRecreated.inc();
      await this.createGroup(key);
      return command();
    }
  }

  private async createGroup(key: string): Promise<void> {
    await this.redis.eval(CREATE_GROUP, 1, key, RELAY_GROUP);
    this.joined.add(key);
  }
}

function hasFields(fields: unknown): fields is string[] {
  return Array.isArray(fields) && fields.length > 0;
}
