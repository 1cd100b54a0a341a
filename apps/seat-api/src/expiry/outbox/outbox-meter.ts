import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS_CLIENT } from '@app/redis';
import { HoldStore } from '../../holds/store';
import { outboxDepth, outboxOldestAge } from '../expiry.metrics';
import type { OutboxEntry } from './outbox-record';

/** An event whose outbox stream has records. */
export interface WaitingStream {
  eventId: string;
  key: string;
  len: number;
}

export interface OutboxLevel {
  depth: number;
  oldestAgeSeconds: number;
  /** Date.now() of the measurement; 0 before the first. */
  measuredAt: number;
}

/**
 * Outbox depth (XLEN over all events) and the age of its oldest record, from the stream ids (Redis time
 * of XADD). Measured on every relay pass before publishing, so the gauges and /health tell the truth
 * while Kafka is down.
 */
@Injectable()
export class OutboxMeter {
  private last: OutboxLevel = { depth: 0, oldestAgeSeconds: 0, measuredAt: 0 };

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly store: HoldStore,
  ) {}

  get level(): OutboxLevel {
    return this.last;
  }

  /** Every event's outbox stream key (the registry the sweeper visits too). */
  async streams(): Promise<{ eventId: string; key: string }[]> {
    const events = await this.store.listEvents();
    return events.map((eventId) => ({ eventId, key: this.store.outboxKey(eventId) }));
  }

  /** Measures, updates the gauges, and returns the streams that have records. */
  async measure(): Promise<WaitingStream[]> {
    const streams = await this.streams();
    const lengths = await this.pipelined(streams.map((s) => ['xlen', s.key]));
    const waiting = streams.map((s, i) => ({ ...s, len: Number(lengths[i]) })).filter((w) => w.len > 0);
    const firsts = await this.pipelined(waiting.map((w) => ['xrange', w.key, '-', '+', 'COUNT', '1']));
    let oldest = Infinity;
    for (const first of firsts as OutboxEntry[][]) {
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

  private async pipelined(commands: string[][]): Promise<unknown[]> {
    if (commands.length === 0) {
      return [];
    }
    const results = (await this.redis.pipeline(commands).exec()) ?? [];
    return results.map(([err, value]) => {
      if (err) {
        throw err;
      }
      return value;
    });
  }
}
