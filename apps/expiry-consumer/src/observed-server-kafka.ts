import { KafkaOptions, ServerKafka } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';

/**
 * Nest's Kafka server, handing its kafkajs consumer to `observe` before the consumer first joins its
 * group. `unwrap()` only works after `startAllMicroservices()`, which resolves after the first
 * GROUP_JOIN has already been emitted: listening that late either misses the join or has to guess it
 * from describeGroup, which a second instance can answer with the first instance's stable group.
 */
export class ObservedServerKafka extends ServerKafka {
  constructor(
    options: Required<KafkaOptions>['options'],
    private readonly observe: (consumer: Consumer) => void,
  ) {
    super(options);
  }

  protected override registerConsumerEventListeners(): void {
    super.registerConsumerEventListeners();
    if (this.consumer) {
      this.observe(this.consumer);
    }
  }
}
