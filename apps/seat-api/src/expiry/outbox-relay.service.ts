import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Kafka, Producer } from 'kafkajs';
import { AppConfig } from '@app/config';
import { KAFKA } from '@app/kafka';
import { REDIS_CLIENT } from '@app/redis';
import { HoldStore } from '../holds/store';
import {
  expiryLag,
  malformedRecords,
  outboxDepth,
  outboxOldestAge,
  published,
  publishFailures,
  sweepLag,
} from './expiry.metrics';
import { SeatExpiredCloudEvent, seatExpiredFromOutbox } from './seat-expired.event';
import { settleWithin } from './settle-within';

const GROUP = 'relay';

/** Creates the relay's consumer group on a stream once; an existing group is fine. */
const CREATE_GROUP = `
local ok, err = pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
if not ok and not string.find(tostring(err), 'BUSYGROUP') then return redis.error_reply(tostring(err)) end
return 1
`;
type Entry = [id: string, fields: string[]];

/**
 * While Kafka is down we retry at most this often (plus kafkajs's own connect retries, ~3 s): each attempt
 * costs a producer and a burst of kafkajs logs, and the wait bounds the delay once Kafka is back.
 */
const MAX_BACKOFF_MS = 2000;
/** Events relayed at the same time by one instance. */
const RELAY_CONCURRENCY = 4;

/**
 * Moves SeatExpired records from each event's outbox stream to Kafka. A record is acknowledged and
 * deleted in Redis only after Kafka acknowledged it (idempotent producer, acks=all), so a crash loses
 * nothing: its unacknowledged records are re-read by this instance, or claimed by another once idle
 * for OUTBOX_CLAIM_IDLE_MS (stream consumer-group semantics). Kafka down: records wait, seats are still
 * freed on time by the sweeper.
 */
@Injectable()
export class OutboxRelayService
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('OutboxRelay');
  private readonly consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly groups = new Set<string>();
  private producer?: Producer;
  private running = false;
  /** The tick in progress, so shutdown lets it acknowledge what Kafka already took before Redis closes. */
  private current?: Promise<number>;
  private kafkaDown = false;
  /** No publish attempt before this time (Date.now()); grows while Kafka stays down. */
  private retryAt = 0;
  private backoffMs = 0;
  private lastDepth = { depth: 0, oldestAgeSeconds: 0 };

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly store: HoldStore,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.expiry.sweeperEnabled) {
      return;
    }
    const timer = setInterval(() => void this.tick(), this.config.expiry.relayIntervalMs);
    this.scheduler.addInterval('outbox-relay', timer);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('interval', 'outbox-relay')) {
      this.scheduler.deleteInterval('outbox-relay');
    }
    await settleWithin(this.current, 10_000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined);
  }

  /** Depth and age of the outbox as last measured (for /health details). */
  get outboxState() {
    return this.lastDepth;
  }

  tick(): Promise<number> {
    if (this.running) {
      return Promise.resolve(0);
    }
    this.running = true;
    this.current = this.runTick();
    return this.current;
  }

  private async runTick(): Promise<number> {
    try {
      const waiting = await this.measure();
      if (waiting.length === 0 || Date.now() < this.retryAt) {
        return 0;
      }
      return await this.publishWaiting(waiting);
    } catch (e) {
      this.onPublishFailure(e as Error);
      return 0;
    } finally {
      this.running = false;
    }
  }

  /** Publishes every waiting record of every event once; returns how many Kafka acknowledged. */
  async relayAll(): Promise<number> {
    return this.publishWaiting(await this.measure());
  }

  /**
   * Outbox depth (XLEN over all events) and the age of its oldest record, from the stream ids (Redis
   * time of XADD). Measured every tick, before publishing, so the gauges tell the truth while Kafka is down.
   */
  private async measure(): Promise<{ eventId: string; key: string; len: number }[]> {
    const events = await this.store.listEvents();
    const keys = events.map((e) => this.store.outboxKey(e));
    const lengths = await this.pipelined(keys.map((k) => ['xlen', k]));
    const waiting = events
      .map((eventId, i) => ({ eventId, key: keys[i], len: Number(lengths[i]) }))
      .filter((w) => w.len > 0);
    const firsts = await this.pipelined(waiting.map((w) => ['xrange', w.key, '-', '+', 'COUNT', '1']));
    let oldest = Infinity;
    for (const first of firsts as Entry[][]) {
      if (first[0]) {
        oldest = Math.min(oldest, Number(first[0][0].split('-')[0]));
      }
    }
    const depth = waiting.reduce((n, w) => n + w.len, 0);
    this.setDepth(depth, oldest === Infinity ? 0 : Math.max(0, Date.now() - oldest) / 1000);
    return waiting;
  }

  private async publishWaiting(waiting: { eventId: string; key: string; len: number }[]): Promise<number> {
    let depth = waiting.reduce((n, w) => n + w.len, 0);
    let sent = 0;
    // a few events at a time: while one batch waits for Kafka's ack, the next one is read and encoded.
    // Each event's stream is still relayed by one worker, in order.
    const queue = [...waiting];
    const worker = async () => {
      for (let w = queue.shift(); w; w = queue.shift()) {
        const n = await this.relayEvent(w.eventId, w.key);
        sent += n;
        depth = Math.max(0, depth - n);
        this.setDepth(depth, depth > 0 ? this.lastDepth.oldestAgeSeconds : 0);
      }
    };
    // allSettled: a failure must not end the tick while other workers still publish
    const results = await Promise.allSettled(
      Array.from({ length: Math.min(RELAY_CONCURRENCY, queue.length) }, worker),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      throw failed.reason;
    }
    if (this.kafkaDown && sent > 0) {
      this.logger.log('outbox relay publishing again');
    }
    this.kafkaDown = false;
    this.backoffMs = 0;
    this.retryAt = 0;
    return sent;
  }

  /** Logged once per outage; retries back off up to MAX_BACKOFF_MS; the producer is rebuilt next time. */
  private onPublishFailure(e: Error): void {
    if (!this.kafkaDown) {
      this.logger.warn(`outbox relay paused: ${e.message}; records wait in Redis`);
    }
    this.kafkaDown = true;
    publishFailures.inc();
    this.backoffMs = Math.min(
      MAX_BACKOFF_MS,
      Math.max(this.config.expiry.relayIntervalMs, this.backoffMs * 2),
    );
    this.retryAt = Date.now() + this.backoffMs;
    const broken = this.producer;
    this.producer = undefined;
    void broken?.disconnect().catch(() => undefined);
  }

  private setDepth(depth: number, oldestAgeSeconds: number): void {
    this.lastDepth = { depth, oldestAgeSeconds };
    outboxDepth.set(depth);
    outboxOldestAge.set(oldestAgeSeconds);
  }

  private async relayEvent(eventId: string, key: string): Promise<number> {
    await this.ensureGroup(key);
    const batch = this.config.expiry.relayBatchSize;
    // records another relay took and left idle (it died) become ours
    await this.redis.xautoclaim(
      key,
      GROUP,
      this.consumer,
      this.config.expiry.claimIdleMs,
      '0-0',
      'COUNT',
      batch,
    );
    let sent = 0;
    for (let round = 0; round < 20; round++) {
      // first our own pending records (a failed publish), then new ones
      let entries = await this.read(key, '0', batch);
      if (entries.length === 0) {
        entries = await this.read(key, '>', batch);
      }
      if (entries.length === 0) {
        return sent;
      }
      const events: SeatExpiredCloudEvent[] = [];
      const malformed: Entry[] = [];
      for (const entry of entries) {
        const ce = seatExpiredFromOutbox(entry[0], entry[1]);
        if (ce) {
          events.push(ce);
        } else {
          malformed.push(entry);
        }
      }
      await this.quarantine(key, malformed);
      await this.publish(eventId, events);
      const ids = entries.map(([id]) => id);
      await this.redis
        .multi()
        .xack(key, GROUP, ...ids)
        .xdel(key, ...ids)
        .exec();
      sent += ids.length;
    }
    return sent;
  }

  /**
   * A record that cannot become a SeatExpired would otherwise be re-read forever and stall its event's
   * outbox: it moves, unchanged, to `<outbox>:malformed` (same hash tag) for a human to look at.
   */
  private async quarantine(key: string, entries: Entry[]): Promise<void> {
    if (entries.length === 0) {
      return;
    }
    const tx = this.redis.multi();
    for (const [id, fields] of entries) {
      tx.xadd(`${key}:malformed`, '*', 'entryId', id, ...fields);
    }
    await tx.exec();
    malformedRecords.inc(entries.length);
    this.logger.error(`${entries.length} malformed outbox record(s) of ${key} moved to ${key}:malformed`);
  }

  private async publish(eventId: string, events: SeatExpiredCloudEvent[]): Promise<void> {
    if (events.length === 0) {
      return;
    }
    const producer = await this.getProducer();
    await producer.send({
      topic: this.config.kafka.seatExpiredTopic,
      acks: -1,
      messages: events.map((ce) => ({
        key: eventId,
        value: JSON.stringify(ce),
        headers: {
          'content-type': 'application/cloudevents+json; charset=UTF-8',
          ce_type: ce.type,
          ce_id: ce.id,
        },
      })),
    });
    const now = Date.now();
    for (const ce of events) {
      const due = Date.parse(ce.data.expireAt);
      expiryLag.observe(Math.max(0, now - due) / 1000);
      // `time` is when the script freed the seat (Redis time): how late the sweeper (or a lazy check) was
      sweepLag.observe(Math.max(0, Date.parse(ce.time) - due) / 1000);
    }
    published.inc(events.length);
  }

  private async read(key: string, from: '0' | '>', count: number): Promise<Entry[]> {
    const res = (await this.redis.xreadgroup(
      'GROUP',
      GROUP,
      this.consumer,
      'COUNT',
      count,
      'STREAMS',
      key,
      from,
    )) as [string, Entry[]][] | null;
    const entries = res?.[0]?.[1] ?? [];
    // a pending entry deleted meanwhile comes back without fields: nothing to publish, just acknowledge it
    const gone = entries
      .filter(([, fields]) => !Array.isArray(fields) || fields.length === 0)
      .map(([id]) => id);
    if (gone.length > 0) {
      await this.redis.xack(key, GROUP, ...gone);
    }
    return entries.filter(([, fields]) => Array.isArray(fields) && fields.length > 0);
  }

  private async ensureGroup(key: string): Promise<void> {
    if (this.groups.has(key)) {
      return;
    }
    // through EVAL so the key is declared and gets the client's keyPrefix (ioredis does not prefix XGROUP's key)
    await this.redis.eval(CREATE_GROUP, 1, key, GROUP);
    this.groups.add(key);
  }

  private async getProducer(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
      });
      try {
        await producer.connect();
      } catch (e) {
        await producer.disconnect().catch(() => undefined);
        throw e;
      }
      this.producer = producer;
    }
    return this.producer;
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
