import { Controller, Logger } from '@nestjs/common';
import { Ctx, KafkaContext, Payload } from '@nestjs/microservices';
import { parseSeatStatus, SeatStatusSchemaError } from '@app/contracts';
import { ConfiguredEventPattern } from '@app/kafka';
import { counter } from '@app/observability';
import { waitlistChange } from './offers/freed-seats';
import { Offer, OfferMaker } from './offers/offer-maker';
import { OfferPublisher } from './offers/offer-publisher';

const consumed = counter('waitlist_messages_total', 'seat.status messages handled, by outcome', ['outcome']);

/**
 * Reads seat.status, one show's changes in order (the topic is keyed by the show). Freed seats become
 * offers (OfferMaker), a booked offer hold makes its entry ACCEPTED. The offset is committed only after the
 * offers are stored and announced: a failure (the seat API, PostgreSQL or Kafka not answering) leaves it
 * uncommitted, kafkajs retries, and the redelivery is a no-op for what was done (OfferMaker says how).
 */
@Controller()
export class SeatStatusConsumer {
  private readonly logger = new Logger('SeatStatusConsumer');

  constructor(
    private readonly offers: OfferMaker,
    private readonly publisher: OfferPublisher,
  ) {}

  @ConfiguredEventPattern('seatStatus') // KAFKA_TOPIC_SEAT_STATUS, resolved at bootstrap
  async handle(@Payload() _payload: object, @Ctx() context: unknown): Promise<void> {
    const ctx = context as KafkaContext;
    const message = ctx.getMessage();
    const origin = { topic: ctx.getTopic(), partition: ctx.getPartition() };
    let outcome: string;
    try {
      const change = waitlistChange(parseSeatStatus(message.value));
      if (change.kind === 'freed') {
        const offers = await this.offers.offerFreed(change.freed);
        await this.announce(offers, change.freed.sourceEventId);
        outcome = offers.length > 0 ? 'offered' : 'no-offer';
      } else if (change.kind === 'booked') {
        await this.offers.accepted(change.holdId);
        outcome = 'booked';
      } else {
        outcome = 'skipped';
      }
    } catch (e) {
      if (!(e instanceof SeatStatusSchemaError)) {
        consumed.inc({ outcome: 'retried' });
        throw e;
      }
      // nothing can be offered from a message that is no seat change: reading on is all there is to do
      this.logger.warn(
        `offset ${message.offset} of ${origin.topic}[${origin.partition}] skipped: ${e.message}`,
      );
      outcome = 'poison';
    }
    consumed.inc({ outcome });
    await ctx.getConsumer().commitOffsets([{ ...origin, offset: (BigInt(message.offset) + 1n).toString() }]);
  }

  /** WaitlistOfferMade for each offer Kafka does not have yet, then that it has them. */
  private async announce(offers: Offer[], sourceEventId: string): Promise<void> {
    const unpublished = offers.filter((o) => !o.published);
    if (unpublished.length === 0) {
      return;
    }
    await this.publisher.publish(unpublished.map(({ published: _published, ...data }) => data));
    await this.offers.published(unpublished, sourceEventId);
  }
}
