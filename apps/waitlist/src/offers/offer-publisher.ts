import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Kafka, Producer } from 'kafkajs';
import { seatStatusKafkaMessage, waitlistOfferMadeEvent, type WaitlistOfferMadeData } from '@app/contracts';
import { WaitlistConfig } from '@app/config';
import { KAFKA } from '@app/kafka';

/**
 * Announces offers on seat.status (WaitlistOfferMade, keyed by the show like every change of it). Its id is
 * the entry and the hold (libs/contracts), so a copy published again after a crash is dropped by id.
 */
@Injectable()
export class OfferPublisher implements OnApplicationShutdown {
  private producer?: Promise<Producer>;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: WaitlistConfig,
  ) {}

  async publish(offers: WaitlistOfferMadeData[]): Promise<void> {
    if (offers.length === 0) {
      return;
    }
    const producer = await (this.producer ??= this.connect());
    const at = new Date();
    await producer.send({
      topic: this.config.kafka.seatStatusTopic,
      acks: -1,
      messages: offers.map((o) => seatStatusKafkaMessage(waitlistOfferMadeEvent(o, at))),
    });
  }

  private async connect(): Promise<Producer> {
    const producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      await producer.connect();
    } catch (e) {
      this.producer = undefined; // the next offer tries again
      throw e;
    }
    return producer;
  }

  async onApplicationShutdown(): Promise<void> {
    const producer = await this.producer?.catch(() => undefined);
    await producer?.disconnect().catch(() => undefined);
  }
}
