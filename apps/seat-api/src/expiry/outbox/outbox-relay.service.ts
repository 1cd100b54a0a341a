import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { SeatExpiredCloudEvent } from '@app/contracts';
import { malformedRecords, publishFailures, relayRedisErrors } from '../expiry.metrics';
import { ShardOwnership } from '../shards/shard-ownership.service';
import { OutboxMeter, WaitingStream } from './outbox-meter';
import { seatExpiredFromOutbox } from './outbox-record';
import { OutboxStreams } from './outbox-streams';
import { RelayBackoff } from './relay-backoff';
import { KafkaPublishError, SeatExpiredPublisher } from './seat-expired.publisher';

/** While Kafka is down, attempts are spaced up to this much (see RelayBackoff). */
const MAX_BACKOFF_MS = 2000;
/** Shards relayed at the same time by one instance. */
const RELAY_CONCURRENCY = 4;
/** Batches per shard per pass: one busy shard cannot keep the pass from ending (and re-measuring). */
const MAX_BATCHES_PER_SHARD = 20;
/**
 * A record older than this many OUTBOX_CLAIM_IDLE_MS is not draining: it missed its own relay's passes
 * and the claim by another instance that a dead relay's records get after one period.
 */
const STALE_AFTER_CLAIM_PERIODS = 2;
/** Dead instances' consumer names (nothing pending) are deleted once idle this many claim periods. */
const REAP_AFTER_CLAIM_PERIODS = 4;

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
 * Moves SeatExpired records from the outbox streams of the shards this instance owns (ShardOwnership) to
 * Kafka. A record is acknowledged and deleted in Redis only after Kafka acknowledged it, so a crash loses
 * nothing. One owner per shard, one worker per stream, batches in stream order: one event's records
 * (all in its shard's stream) reach Kafka in the order they were written. A new owner first takes over
 * whatever a former owner read and left unacknowledged (it died, or lost the lease), before any new
 * record, so the order holds across a hand-over. Kafka down: records wait, seats are still freed on time.
 *
 * A failure is Kafka's (KafkaPublishError: the producer is dropped and attempts back off) or Redis's
 * (the producer is kept: a lost consumer group or a Redis blip says nothing about Kafka). The
 * scheduling is OutboxRelayJob's; Redis streams are OutboxStreams'; Kafka is SeatExpiredPublisher's.
 */
@Injectable()
export class OutboxRelayService {
  private readonly logger = new Logger('OutboxRelay');
  private readonly backoff: RelayBackoff;
  private readonly startedAt = Date.now();
  private failure?: { source: 'kafka' | 'redis'; message: string; since: number };
  private running?: Promise<number>;
  private nextReapAt = 0;

  constructor(
    private readonly meter: OutboxMeter,
    private readonly streams: OutboxStreams,
    private readonly publisher: SeatExpiredPublisher,
    private readonly shards: ShardOwnership,
    private readonly config: AppConfig,
  ) {
    this.backoff = new RelayBackoff(config.expiry.relayIntervalMs, MAX_BACKOFF_MS);
  }

  /** The pass in progress, if any (shutdown lets it acknowledge what Kafka already took). */
  get inFlight(): Promise<number> | undefined {
    return this.running;
  }

  /**
   * One scheduled pass: measure, publish (unless backing off after a Kafka failure), now and then reap
   * dead consumers. Never overlaps itself, never throws; returns the records relayed.
   */
  tick(): Promise<number> {
    if (!this.running) {
      this.running = this.pass().finally(() => (this.running = undefined));
    }
    return this.running;
  }

  /** Publishes every waiting record of the shards this instance owns once; returns how many left. Throws. */
  async relayAll(): Promise<number> {
    return this.publishWaiting(await this.meter.measure());
  }

  health(): OutboxHealth {
    const { depth, oldestAgeSeconds, measuredAt } = this.meter.level;
    const staleAfterMs = STALE_AFTER_CLAIM_PERIODS * this.config.expiry.claimIdleMs;
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

  private async pass(): Promise<number> {
    try {
      const waiting = await this.meter.measure();
      let sent = 0;
      if (waiting.length === 0) {
        this.recovered(); // nothing to publish: nothing is failing
      } else if (!this.backoff.waiting) {
        sent = await this.publishWaiting(waiting);
      }
      await this.reapNowAndThen();
      return sent;
    } catch (e) {
      this.onFailure(e);
      return 0;
    }
  }

  private async publishWaiting(waiting: WaitingStream[]): Promise<number> {
    let sent = 0;
    // a few shards at a time: while one batch waits for Kafka's ack, the next one is read and encoded.
    // Each shard's stream is still relayed by one worker, in order.
    const queue = [...waiting];
    const worker = async () => {
      for (let w = queue.shift(); w; w = queue.shift()) {
        const key = w.key;
        const n = (await this.shards.onShard(w.shard, (signal) => this.relayStream(key, signal))) ?? 0;
        sent += n;
        this.meter.drained(n);
      }
    };
    // allSettled: a failure must not end the pass while other workers still publish
    const results = await Promise.allSettled(
      Array.from({ length: Math.min(RELAY_CONCURRENCY, queue.length) }, worker),
    );
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length > 0) {
      // Kafka's failure decides the backoff even if another worker failed on Redis
      throw failures.find((f) => f instanceof KafkaPublishError) ?? failures[0];
    }
    this.recovered();
    return sent;
  }

  private async relayStream(key: string, signal: AbortSignal): Promise<number> {
    const { relayBatchSize: batch } = this.config.expiry;
    let sent = 0;
    for (let round = 0; round < MAX_BATCHES_PER_SHARD && !signal.aborted; round++) {
      // the shard is ours: records a former owner read and never acknowledged are ours at once (idle 0),
      // and they come first (lower ids), so a hand-over keeps the order
      await this.streams.claimAbandoned(key, 0, batch);
      // first our own pending records (a failed publish), then new ones
      let entries = await this.streams.read(key, '0', batch);
      if (entries.length === 0) {
        entries = await this.streams.read(key, '>', batch);
      }
      if (entries.length === 0) {
        break;
      }
      const events: SeatExpiredCloudEvent[] = [];
      const malformed: string[] = [];
      for (const [id, fields] of entries) {
        const ce = seatExpiredFromOutbox(fields);
        if (ce) {
          events.push(ce);
        } else {
          malformed.push(id);
        }
      }
      if (signal.aborted) {
        break; // the lease was lost while reading: the next owner publishes these, in order
      }
      await this.publisher.publish(events);
      // a record that cannot become a SeatExpired would be re-read forever and stall its event: moved aside
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
      sent += entries.length;
    }
    return sent;
  }

  /** Once per claim period: each restart leaves a consumer name per stream; the dead ones go. */
  private async reapNowAndThen(): Promise<void> {
    const { claimIdleMs } = this.config.expiry;
    if (Date.now() < this.nextReapAt) {
      return;
    }
    this.nextReapAt = Date.now() + claimIdleMs;
    const streams = this.meter.streams();
    await Promise.all(streams.map((s) => this.streams.reap(s.key, REAP_AFTER_CLAIM_PERIODS * claimIdleMs)));
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
