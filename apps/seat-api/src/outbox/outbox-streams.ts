import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { LuaScript, REDIS_CLIENT } from '@app/redis';
import type { OutboxEntry } from './outbox-record';

/** settle-with-malformed.lua: moves the malformed records of a batch aside and deletes the whole batch. */
export const SETTLE_WITH_MALFORMED = new LuaScript(__dirname, {
  file: 'settle-with-malformed.lua',
  keys: ['outbox', 'malformedOutbox'],
  argv: ['malformedCount', 'entryIds...'],
} as const);

/**
 * The relay's reads and deletes on a shard's outbox stream. Redis only: every error it throws is a
 * Redis error.
 *
 * No consumer group. A shard has one relaying owner at a time (its lease), and a record leaves the
 * stream only once Kafka has it, so the stream itself is the list of what is left to publish: its first
 * records are the next batch, whoever relayed before. A new owner (the former one died or lost the
 * lease) starts from the stream's head, so what the former owner read and never settled comes first and
 * the order holds across a hand-over. A consumer group would add nothing but cost: XREADGROUP writes
 * every record into the group's pending list and propagates an XCLAIM per record to the replicas and
 * the append-only file; XRANGE is a read and propagates nothing. There is also no group to lose when
 * Redis loses data, and no consumer names to clean up after instances that are gone.
 */
@Injectable()
export class OutboxStreams {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  /** The next batch to publish: the stream's first `count` records, oldest first. One read. */
  async next(key: string, count: number): Promise<OutboxEntry[]> {
    return this.redis.xrange(key, '-', '+', 'COUNT', count);
  }

  /**
   * After Kafka acknowledged `ids`: deletes them, first moving the `malformed` ones (a subset) unchanged
   * to `<outbox>:malformed` (same hash tag) for a human to look at, in the same script.
   */
  async settle(key: string, ids: string[], malformed: string[]): Promise<void> {
    if (ids.length === 0) {
      return;
    }
    if (malformed.length === 0) {
      await this.redis.xdel(key, ...ids); // one command: nothing to do atomically with it
      return;
    }
    const rest = ids.filter((id) => !malformed.includes(id));
    await SETTLE_WITH_MALFORMED.run(
      this.redis,
      { outbox: key, malformedOutbox: `${key}:malformed` },
      { malformedCount: malformed.length, entryIds: [...malformed, ...rest] },
    );
  }
}
