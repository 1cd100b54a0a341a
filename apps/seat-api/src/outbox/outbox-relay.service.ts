import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { ShardOwnership } from '../shards/shard-ownership.service';
import { OutboxMeter, WaitingStream } from './outbox-meter';
import { eventFromOutbox, OutboxEvent } from './outbox-record';
import { OutboxStreams } from './outbox-streams';
import { malformedRecords, publishFailures, relayRedisErrors } from './outbox.metrics';
import { PublishRound } from './publish-round';
import { RelayBackoff } from './relay-backoff';
import { KafkaPublishError, SeatChangePublisher } from './seat-change.publisher';

/** While Kafka is down, attempts are spaced up to this much (see RelayBackoff). */
const MAX_BACKOFF_MS = 2000;
/** Batches per shard per pass: one busy shard cannot keep the pass from ending (and re-measuring). */
const MAX_BATCHES_PER_SHARD = 20;

export type RelayState = 'disabled' | 'running' | 'failing' | 'stalled';

/** What /health reports about the outbox. */
export interface OutboxHealth {
  degraded: boolean;
  relay: RelayState;
  depth: number;
  oldestAgeSeconds: number;
  /** Records leave the outbox as they should (false: failing, stalled, or the oldest is too old). */
  draining: boolean;
  staleAfterSeconds: number;
  message?: string;
  lastError?: { source: 'kafka' | 'redis'; message: string; since: string };
}

/**
 * Moves the outbox records (every seat change: SeatExpired, BookingCancelled, the holds' seat.status changes)
 * from the outbox streams of the shards this instance owns (ShardOwnership) to Kafka. A record is deleted from Redis only after Kafka acknowledged it, so a crash loses
 * nothing. One owner per shard, one worker per stream, batches in stream order: one event's records
 * (all in its shard's stream) reach Kafka in the order they were written. A record leaves the stream
 * only once Kafka has it, so a new owner (the former one died, or lost the lease) starts with whatever
 * the former owner read and never settled, and the order holds across a hand-over. Kafka down: records
 * wait, seats are still freed on time.
 *
 * A failure is Kafka's (KafkaPublishError: the producer is dropped and attempts back off) or Redis's
 * (the producer is kept: a Redis blip says nothing about Kafka). The
 * scheduling is OutboxRelayJob's; Redis streams are OutboxStreams'; Kafka is SeatChangePublisher's.
 */
@Injectable()
export class OutboxRelayService {
  private readonly logger = new Logger('OutboxRelay');
  private readonly backoff: RelayBackoff;
  private readonly startedAt = Date.now();
  private failure?: { source: 'kafka' | 'redis'; message: string; since: number };
  private running?: Promise<number>;
  private stopped = false;

  constructor(
    private readonly meter: OutboxMeter,
    private readonly streams: OutboxStreams,
    private readonly publisher: SeatChangePublisher,
    private readonly shards: ShardOwnership,
    private readonly config: AppConfig,
  ) {
    this.backoff = new RelayBackoff(config.expiry.relayIntervalMs, MAX_BACKOFF_MS);
    // a former owner may have left records behind
    shards.onTaken((taken) => this.meter.recordsMayWait(taken));
  }

  /** A sweep of these shards may have written records: the next pass measures their streams. */
  recordsMayWait(shards: Iterable<number>): void {
    this.meter.recordsMayWait(shards);
  }

  /** The pass in progress, if any (shutdown lets it delete what Kafka already took). */
  get inFlight(): Promise<number> | undefined {
    return this.running;
  }

  /**
   * One scheduled run of passes: measure, publish (unless backing off after a Kafka failure).
   * Never overlaps itself, never throws; returns the records relayed.
   */
  tick(): Promise<number> {
    if (!this.running && !this.stopped) {
      this.running = this.passes().finally(() => (this.running = undefined));
    }
    return this.running ?? Promise.resolve(0);
  }

  /** Shutdown: no new pass; the run in flight ends with the pass it is in (see `inFlight`). */
  stop(): void {
    this.stopped = true;
  }

  /** Publishes every waiting record of the shards this instance owns once; returns how many left. Throws. */
  async relayAll(): Promise<number> {
    return this.publishWaiting(await this.meter.measure(true));
  }

  health(): OutboxHealth {
    const { depth, oldestAgeSeconds, measuredAt } = this.meter.level;
    const { staleAfterMs } = this.config.expiry;
    const base = { depth, oldestAgeSeconds, staleAfterSeconds: staleAfterMs / 1000 };
    if (!this.config.expiry.sweeperEnabled) {
      // another instance relays (or nobody: then its own /health says so)
      return { ...base, degraded: false, relay: 'disabled', draining: true };
    }
    const lastError = this.failure && {
      source: this.failure.source,
      message: this.failure.message,
      since: new Date(this.failure.since).toISOString(),
    };
    const silentMs = Date.now() - (measuredAt || this.startedAt);
    let relay: RelayState = 'running';
    let message: string | undefined;
    if (this.failure) {
      relay = 'failing';
      message = `relay failing on ${this.failure.source} since ${lastError!.since}: ${this.failure.message}`;
    } else if (silentMs > Math.max(5000, 10 * this.config.expiry.relayIntervalMs)) {
      relay = 'stalled';
      message = `no relay pass for ${Math.round(silentMs / 1000)} s`;
    } else if (depth > 0 && oldestAgeSeconds * 1000 > staleAfterMs) {
      message = `oldest record waiting ${Math.round(oldestAgeSeconds)} s (over ${staleAfterMs / 1000} s)`;
    }
    const degraded = message !== undefined;
    return { ...base, degraded, relay, draining: !degraded, message, lastError };
  }

  /**
   * Passes back to back while they relay something: when many holds fall due at once, the sweep appends
   * records the whole time, and waiting OUTBOX_RELAY_INTERVAL_MS after each pass left Kafka idle meanwhile.
   * A pass that finds nothing (or fails: the backoff decides) ends the run until the next tick.
   */
  private async passes(): Promise<number> {
    let total = 0;
    for (;;) {
      const sent = await this.pass();
      total += sent;
      if (sent === 0 || this.stopped) {
        return total;
      }
    }
  }

  private async pass(): Promise<number> {
    try {
      const waiting = await this.meter.measure();
      let sent = 0;
      if (waiting.length === 0) {
        this.recovered(); // nothing to publish: nothing is failing
      } else if (!this.backoff.waiting) {
        sent = await this.publishWaiting(waiting);
      }
      return sent;
    } catch (e) {
      this.onFailure(e);
      return 0;
    }
  }

  /**
   * Rounds: each shard with records reads its next batch, the round sends them to Kafka together
   * (PublishRound), each shard then deletes its own from its stream. A shard stays in the next round while its batches
   * come back full. A shard failing on Redis leaves the rounds (the others go on); a Kafka failure ends
   * the pass (nothing else would get through).
   */
  private async publishWaiting(waiting: WaitingStream[]): Promise<number> {
    const { relayBatchSize: batch } = this.config.expiry;
    let sent = 0;
    const failures: unknown[] = [];
    let active = waiting;
    for (let round = 0; round < MAX_BATCHES_PER_SHARD && active.length > 0; round++) {
      const publishRound = new PublishRound<OutboxEvent>(active.length, batch, (events) =>
        this.publisher.publish(events),
      );
      const results = await Promise.allSettled(active.map((w) => this.relayBatch(w, batch, publishRound)));
      const next: WaitingStream[] = [];
      results.forEach((r, i) => {
        if (r.status === 'rejected') {
          failures.push(r.reason);
          return;
        }
        sent += r.value.sent;
        this.meter.drained(r.value.sent);
        if (r.value.full) {
          next.push(active[i]);
        }
      });
      if (failures.some((f) => f instanceof KafkaPublishError)) {
        break;
      }
      active = next;
    }
    if (failures.length > 0) {
      // Kafka's failure decides the backoff even if another shard failed on Redis
      throw failures.find((f) => f instanceof KafkaPublishError) ?? failures[0];
    }
    this.recovered();
    return sent;
  }

  /**
   * One batch of one shard's stream, read, published in `round` and deleted, all while the shard's
   * lease is held (a release waits for it). `full`: the batch was full, more may wait.
   */
  private async relayBatch(
    w: WaitingStream,
    batch: number,
    round: PublishRound<OutboxEvent>,
  ): Promise<{ sent: number; full: boolean }> {
    let handedIn = false;
    try {
      const done = await this.shards.onShard(w.shard, async (signal) => {
        const key = w.key;
        // the shard is ours: the stream's first records, which a former owner (or a failed publish) may have read already
        const entries = await this.streams.next(key, batch);
        if (entries.length === 0 || signal.aborted) {
          return { sent: 0, full: false }; // lease lost while reading: the next owner publishes these, in order
        }
        const events: OutboxEvent[] = [];
        const malformed: string[] = [];
        for (const [id, fields] of entries) {
          const ce = eventFromOutbox(fields);
          if (ce) {
            events.push(ce);
          } else {
            malformed.push(id);
          }
        }
        handedIn = true;
        if (!(await round.submit(events, signal))) {
          return { sent: 0, full: false }; // lease lost before the send: left for the next owner
        }
        // a record that cannot become a CloudEvent would be re-read forever and stall its event: moved aside
        await this.streams.settle(
          key,
          entries.map(([id]) => id),
          malformed,
        );
        if (malformed.length > 0) {
          malformedRecords.inc(malformed.length);
          this.logger.error(
            `${malformed.length} malformed outbox record(s) of ${key} moved to ${key}:malformed`,
          );
        }
        return { sent: entries.length, full: entries.length >= batch };
      });
      return done ?? { sent: 0, full: false };
    } finally {
      if (!handedIn) {
        round.withdraw(); // the round does not wait for a shard that brings nothing
      }
    }
  }

  /** Logged once per outage and source; only a Kafka failure drops the producer and backs off. */
  private onFailure(e: unknown): void {
    const source = e instanceof KafkaPublishError ? 'kafka' : 'redis';
    const message = e instanceof Error ? e.message : String(e);
    if (source === 'kafka') {
      publishFailures.inc();
      this.publisher.discard();
      this.backoff.failed();
    } else {
      relayRedisErrors.inc();
    }
    if (this.failure?.source !== source) {
      this.logger.warn(`outbox relay paused (${source}): ${message}; records wait in Redis`);
    }
    this.failure = {
      source,
      message,
      since: this.failure?.source === source ? this.failure.since : Date.now(),
    };
  }

  private recovered(): void {
    if (this.failure) {
      this.logger.log(`outbox relay running again after a ${this.failure.source} failure`);
    }
    this.failure = undefined;
    this.backoff.succeeded();
  }
}
