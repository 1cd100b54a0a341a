import { KafkaOptions, MessageHandler, ServerKafka } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';
import { ConfiguredTopic, resolveTopicPattern } from './configured-topic';

export interface ServerHooks {
  /** Receives the kafkajs consumer before it first joins its group. */
  observe: (consumer: Consumer) => void;
  /** The configured name of each topic role the app's @ConfiguredEventPattern handlers use. */
  topics: Partial<Record<ConfiguredTopic, string>>;
}

/**
 * Nest's Kafka server, with two additions:
 * - it hands its kafkajs consumer to `observe` before the consumer first joins its group. `unwrap()` only
 *   works after `startAllMicroservices()`, which resolves after the first GROUP_JOIN has already been
 *   emitted: listening that late either misses the join or has to guess it from describeGroup, which a
 *   second instance can answer with the first instance's stable group;
 * - it registers a @ConfiguredEventPattern handler under the topic the configuration names (the server
 *   subscribes to the patterns it has handlers for, and dispatches on the topic of each message).
 */
export class ObservedServerKafka extends ServerKafka {
  constructor(
    options: Required<KafkaOptions>['options'],
    private readonly hooks: ServerHooks,
  ) {
    super(options);
  }

  override addHandler(
    pattern: unknown,
    callback: MessageHandler,
    isEventHandler?: boolean,
    extras?: Record<string, unknown>,
  ): void {
    super.addHandler(resolveTopicPattern(pattern, this.hooks.topics), callback, isEventHandler, extras);
  }

  protected override registerConsumerEventListeners(): void {
    super.registerConsumerEventListeners();
    if (this.consumer) {
      this.hooks.observe(this.consumer);
    }
  }
}
