import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Kafka, Message, Producer } from 'kafkajs';
import { AppConfig } from '@app/config';
import { SEAT_EXPIRED_TYPE, seatExpiredKafkaMessage, seatStatusKafkaMessage } from '@app/contracts';
import { KAFKA } from '@app/kafka';
import { keyedPartitioner } from './keyed-partitioner';
import { OutboxEvent } from './outbox-record';
import { expiryLag, published, sweepLag } from './outbox.metrics';

/** Kafka did not take a batch (unreachable, timed out, refused). The records stay in the outbox. */
export class KafkaPublishError extends Error {
  constructor(cause: unknown) {
    super(`Kafka: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'KafkaPublishError';
  }
}

/**
 * Publishes the outbox's batches with one idempotent producer (acks=all, one request in flight, so a
 * retried batch neither duplicates nor reorders), connected on first use. Routing: every record goes to
 * seat.status (KAFKA_TOPIC_SEAT_STATUS); SeatExpired also to seat.expired, which carries SeatExpired
 * alone, as it always has, so its consumers see no type they were not built for. Both topics in one
 * request (sendBatch): a batch is acknowledged on both or retried on both, so neither topic misses a
 * record the outbox let go of; a retry may repeat one on either topic, with the same id. With
 * SEAT_STATUS_STREAM_ENABLED off, seat.status gets only the records that have no other topic
 * (BookingCancelled; none from the hold scripts then). Every failure is a
 * KafkaPublishError, so callers can tell it from a Redis error. `discard()` drops a producer that may be
 * broken; the next publish connects a new one.
 */
@Injectable()
export class SeatChangePublisher implements OnApplicationShutdown {
  private producer?: Producer;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: AppConfig,
  ) {}

  async publish(events: OutboxEvent[]): Promise<void> {
    if (events.length === 0) {
      return;
    }
    const { seatExpiredTopic, seatStatusTopic } = this.config.kafka;
    const expiredTopic: Message[] = [];
    const statusTopic: Message[] = [];
    for (const ce of events) {
      if (ce.type === SEAT_EXPIRED_TYPE) {
        expiredTopic.push(seatExpiredKafkaMessage(ce));
        if (!this.config.expiry.statusStreamEnabled) {
          continue;
        }
      }
      statusTopic.push(seatStatusKafkaMessage(ce));
    }
    const topicMessages = [
      { topic: seatExpiredTopic, messages: expiredTopic },
      { topic: seatStatusTopic, messages: statusTopic },
    ].filter((t) => t.messages.length > 0);
    try {
      const producer = await this.connected();
      await producer.sendBatch({ acks: -1, topicMessages });
    } catch (e) {
      throw new KafkaPublishError(e);
    }
    const now = Date.now();
    let expired = 0;
    for (const ce of events) {
      if (ce.type !== SEAT_EXPIRED_TYPE) {
        continue; // no due time: the expiry lags and count measure expiries only
      }
      expired++;
      const due = Date.parse(ce.data.expireAt);
      expiryLag.observe(Math.max(0, now - due) / 1000);
      // `time` is when the script freed the seat (Redis time): how late the sweeper (or a lazy check) was
      sweepLag.observe(Math.max(0, Date.parse(ce.time) - due) / 1000);
    }
    published.inc(expired);
  }

  discard(): void {
    const broken = this.producer;
    this.producer = undefined;
    void broken?.disconnect().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined);
  }

  private async connected(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: keyedPartitioner,
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
}
