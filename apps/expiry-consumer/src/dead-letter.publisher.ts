import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Kafka, KafkaMessage, Producer } from 'kafkajs';
import { ExpiryConsumerConfig } from '@app/config';
import { KAFKA } from '@app/kafka';

/** Parks a message we cannot process on the dead-letter topic, with why and where it came from. */
@Injectable()
export class DeadLetterPublisher implements OnApplicationShutdown {
  private producer?: Producer;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: ExpiryConsumerConfig,
  ) {}

  async publish(
    message: KafkaMessage,
    origin: { topic: string; partition: number },
    reason: string,
  ): Promise<void> {
    if (!this.producer) {
      const producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      this.producer = producer;
    }
    await this.producer.send({
      topic: this.config.kafka.deadLetterTopic,
      acks: -1,
      messages: [
        {
          key: asBytes(message.key),
          value: asBytes(message.value),
          headers: {
            ...message.headers,
            'dlq-reason': reason,
            'dlq-original-topic': origin.topic,
            'dlq-original-partition': String(origin.partition),
            'dlq-original-offset': message.offset,
            'dlq-failed-at': new Date().toISOString(),
          },
        },
      ],
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined);
  }
}

/** Nest's Kafka transport hands over values it could parse as objects: put back the bytes we received. */
function asBytes(v: unknown): Buffer | string | null {
  if (v === null || v === undefined) {
    return null;
  }
  if (Buffer.isBuffer(v) || typeof v === 'string') {
    return v;
  }
  return JSON.stringify(v);
}
