import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS_CLIENT } from '@app/redis';
import { HoldStore } from '../hold-store';
import { ShardOwnership } from '../shards/shard-ownership.service';
import type { OutboxEntry } from './outbox-record';
import { outboxDepth, outboxOldestAge } from './outbox.metrics';

/** A shard's outbox stream. */
export interface OutboxStream {
  shard: number;
  key: string;
}

/** A shard whose outbox stream has records. */
export interface WaitingStream extends OutboxStream {
  len: number;
}

export interface OutboxLevel {
  depth: number;
  oldestAgeSeconds: number;
  /** Date.now() of the measurement; 0 before the first. */
  measuredAt: number;
}

/**
 * Outbox depth (XLEN over the shards this instance owns) and the age of its oldest record, from the
 * stream ids (Redis time of XADD). Measured on every relay pass before publishing, so the gauges and
 * /health tell the truth while Kafka is down. Each instance measures what it relays: the deployment's
 * outbox is the sum over instances. One command per stream (no pipeline: on a Cluster the shards' streams
 * live in different slots; ioredis's auto-pipelining still batches them per node).
 *
 * A pass measures only the streams that may have records: those of the shards the sweeper has just swept
 * or this instance has just taken over (recordsMayWait), until they are found empty. Every record is
 * written by a hold script on a due hold, or by a change that wakes the shard's owner to sweep it now
 * (hold-scripts.ts wakeRelay: the seat.status records), and the owner sweeps each shard when its work is
 * due, so an idle service measures nothing; the sweeper's rounds of every shard mark them all from time to
 * time.
 */
@Injectable()
export class OutboxMeter {
  private last: OutboxLevel = { depth: 0, oldestAgeSeconds: 0, measuredAt: 0 };
  /**
   * Shards whose stream may have records, each with a count of its marks: measured by every pass until
   * found empty by a measurement that no mark came after (a sweep may write while XLEN is on its way).
   */
  private readonly pending = new Map<number, number>();
  private marks = 0;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly store: HoldStore,
    private readonly shards: ShardOwnership,
  ) {}

  get level(): OutboxLevel {
    return this.last;
  }

  /** The outbox streams of the shards this instance owns. */
  streams(): OutboxStream[] {
    return this.shards.ownedShards().map((shard) => ({ shard, key: this.store.outboxKey(shard) }));
  }

  /** These shards' streams may have records now (a sweep wrote some, a former owner left some). */
  recordsMayWait(shards: Iterable<number>): void {
    for (const shard of shards) {
      this.pending.set(shard, ++this.marks);
    }
  }

  /**
   * Measures the streams that may have records (`all`: every owned shard's), updates the gauges, and
   * returns the streams that have records.
   */
  async measure(all = false): Promise<WaitingStream[]> {
    if (!all && this.pending.size === 0) {
      this.set(0, 0); // the usual idle pass: nothing to read, and the pass still counts as alive
      return [];
    }
    const owned = this.streams();
    for (const shard of this.pending.keys()) {
      if (!owned.some((s) => s.shard === shard)) {
        this.pending.delete(shard); // its new owner measures it
      }
    }
    const streams = owned.filter((s) => all || this.pending.has(s.shard));
    const marked = streams.map((s) => this.pending.get(s.shard));
    const lengths = await Promise.all(streams.map((s) => this.redis.xlen(s.key)));
    const measured = streams.map((s, i) => ({ ...s, len: Number(lengths[i]) }));
    measured.forEach((m, i) => {
      if (m.len === 0 && this.pending.get(m.shard) === marked[i]) {
        this.pending.delete(m.shard);
      } else if (m.len > 0 && !this.pending.has(m.shard)) {
        this.pending.set(m.shard, ++this.marks);
      }
    });
    const waiting = measured.filter((w) => w.len > 0);
    const firsts = await Promise.all(
      waiting.map((w) => this.redis.xrange(w.key, '-', '+', 'COUNT', 1) as Promise<OutboxEntry[]>),
    );
    let oldest = Infinity;
    for (const first of firsts) {
      if (first[0]) {
        oldest = Math.min(oldest, Number(first[0][0].split('-')[0]));
      }
    }
    const depth = waiting.reduce((n, w) => n + w.len, 0);
    this.set(depth, oldest === Infinity ? 0 : Math.max(0, Date.now() - oldest) / 1000);
    return waiting;
  }

  /**
   * `n` records left the outbox (published) since the last measurement: the gauges follow a long pass
   * without measuring again, and the pass counts as alive (`measuredAt`).
   */
  drained(n: number): void {
    const depth = Math.max(0, this.last.depth - n);
    this.set(depth, depth > 0 ? this.last.oldestAgeSeconds : 0);
  }

  private set(depth: number, oldestAgeSeconds: number, measuredAt = Date.now()): void {
    this.last = { depth, oldestAgeSeconds, measuredAt };
    outboxDepth.set(depth);
    outboxOldestAge.set(oldestAgeSeconds);
  }
}
