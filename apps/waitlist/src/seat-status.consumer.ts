import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { parseSeatStatus, SeatStatusSchemaError } from '@app/contracts';
import { WaitlistConfig } from '@app/config';
import { GroupMembership, KAFKA } from '@app/kafka';
import { counter } from '@app/observability';
import { FreedSeats, waitlistChange } from './offers/freed-seats';
import { Offer, OfferMaker } from './offers/offer-maker';
import { OfferPublisher } from './offers/offer-publisher';

const consumed = counter(
  'waitlist_messages_total',
  'seat.status messages handled, by what they meant (freed, booked, none, poison) or retried',
  ['outcome'],
);

/**
 * Partitions handled at once, at most: each holds a connection for its offer transaction and briefly takes
 * another to write an ask (ShowOffers.announce), so fewer with a pool (DATABASE_POOL_SIZE) too small to
 * leave one free beside them; the default pool (10) leaves four.
 */
const PARTITIONS_AT_ONCE = 6;

/**
 * Reads seat.status (keyed by the show, so one show's changes arrive in order) a batch at a time: a burst
 * of freed seats, one message per expired seat, becomes one transaction per show of the batch, one
 * WaitlistOfferMade send and one offset commit, not one of each per seat. kafkajs's eachBatch does that;
 * Nest's Kafka transport only hands over one message at a time, so this consumer is kafkajs's own.
 *
 * The offset is committed only after the batch's offers are stored and announced: a failure (the seat API,
 * PostgreSQL or Kafka not answering) leaves it uncommitted, kafkajs retries the batch, and what was done
 * is a no-op the second time (OfferMaker says how). A show that fails does not stop the batch's other
 * shows, and a refusal of one entry's hold fails nothing (OfferMaker passes the entry over). Shows on other
 * partitions are offered meanwhile: an offer waits mostly on PostgreSQL, the seat API and Kafka, not on
 * this process.
 */
@Injectable()
export class SeatStatusConsumer implements BeforeApplicationShutdown {
  private readonly logger = new Logger('SeatStatusConsumer');
  private consumer?: Consumer;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: WaitlistConfig,
    private readonly membership: GroupMembership,
    private readonly offers: OfferMaker,
    private readonly publisher: OfferPublisher,
  ) {}

  /** Joins the group (WAITLIST_CONSUMER_GROUP, shared by every instance) and starts reading. */
  async start(): Promise<void> {
    const { consumerGroup, sessionTimeoutMs, seatStatusTopic } = this.config.kafka;
    const consumer = this.kafka.consumer({
      groupId: consumerGroup,
      allowAutoTopicCreation: false,
      sessionTimeout: sessionTimeoutMs,
      heartbeatInterval: Math.floor(sessionTimeoutMs / 10),
      // a batch that fails (the seat API or PostgreSQL down) is retried with kafkajs's default backoff, up
      // to 30 s apart, not the client's short request retries: running out of retries restarts the
      // consumer, which leaves and rejoins the group (a rebalance for every instance)
      retry: { initialRetryTime: 300, maxRetryTime: 30_000, retries: 5 },
    });
    this.consumer = consumer;
    this.membership.attach(consumer); // before it runs: its first GROUP_JOIN is not missed
    await consumer.connect();
    await consumer.subscribe({ topics: [seatStatusTopic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(
        1,
        Math.min(PARTITIONS_AT_ONCE, this.config.database.poolSize - 1),
      ),
      eachBatch: (payload) => this.handle(payload),
    });
  }

  /** Before PostgreSQL and the producer close: the batch in flight finishes (kafkajs waits for it). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.disconnect().catch(() => undefined);
  }

  private async handle(payload: EachBatchPayload) {
    const { batch } = payload;
    const last = batch.messages.at(-1);
    if (!last) {
      return;
    }
    const { freedByShow, booked, outcomes } = this.read(batch.messages, batch.topic, batch.partition);
    const offers: Offer[] = [];
    let failure: Error | undefined;
    let handedOver = false;
    try {
      for (const freed of freedByShow.values()) {
        // the partition went to another member (or we stop): it reads on from the committed offset
        handedOver = !payload.isRunning() || payload.isStale();
        if (handedOver) {
          break;
        }
        try {
          offers.push(...(await this.offers.offerFreed(freed)));
        } catch (e) {
          // the shows after it are offered all the same; the batch is retried for this one
          failure ??= asError(e);
        }
        await payload.heartbeat();
      }
      if (!handedOver && booked.length > 0) {
        await this.offers.accepted(booked);
      }
    } catch (e) {
      failure ??= asError(e);
    }
    // what was stored is announced even when a later show failed or the partition moved on: its users
    // should not wait for the retry
    await this.announce(offers).catch((e: unknown) => {
      failure ??= asError(e);
    });
    if (failure !== undefined) {
      consumed.inc({ outcome: 'retried' }, batch.messages.length);
      throw failure;
    }
    if (handedOver) {
      return;
    }
    payload.resolveOffset(last.offset);
    await this.consumer!.commitOffsets([
      { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
    ]);
    outcomes.forEach((n, outcome) => consumed.inc({ outcome }, n));
  }

  /** The batch's freed seats by show, in the order of their changes, and the offer holds booked. */
  private read(messages: KafkaMessage[], topic: string, partition: number) {
    const freedByShow = new Map<string, FreedSeats[]>();
    const booked: string[] = [];
    const outcomes = new Map<string, number>();
    for (const message of messages) {
      let outcome: string;
      try {
        const change = waitlistChange(parseSeatStatus(message.value));
        outcome = change.kind;
        if (change.kind === 'freed') {
          const show = freedByShow.get(change.freed.eventId);
          if (show) {
            show.push(change.freed);
          } else {
            freedByShow.set(change.freed.eventId, [change.freed]);
          }
        } else if (change.kind === 'booked') {
          booked.push(change.holdId);
        }
      } catch (e) {
        if (!(e instanceof SeatStatusSchemaError)) {
          throw e;
        }
        // nothing can be offered from a message that is no seat change: reading on is all there is to do
        this.logger.warn(`offset ${message.offset} of ${topic}[${partition}] skipped: ${e.message}`);
        outcome = 'poison';
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    return { freedByShow, booked, outcomes };
  }

  /** WaitlistOfferMade for each offer Kafka does not have yet, then that it has them. */
  private async announce(offers: Offer[]): Promise<void> {
    const unpublished = offers.filter((o) => !o.published);
    if (unpublished.length === 0) {
      return;
    }
    await this.publisher.publish(unpublished.map((o) => o.data));
    await this.offers.published(unpublished);
  }
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
