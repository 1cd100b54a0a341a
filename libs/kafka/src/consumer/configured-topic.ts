import { EventPattern } from '@nestjs/microservices';

/**
 * The topics Nest's Kafka transport reads for an app, by role. Their names are configuration
 * (KAFKA_TOPIC_SEAT_EXPIRED; each test file has its own), known only once the config provider is resolved,
 * after every class was defined.
 */
export type ConfiguredTopic = 'seatExpired';

const PREFIX = 'configured-topic:';

/**
 * `@EventPattern` for a topic named by configuration: the handler carries the topic's role, and the Kafka
 * server (ObservedServerKafka) replaces it by the configured name when the handlers are registered at
 * bootstrap. No configuration is read when the class is defined, so a test's overrideProvider reaches it.
 */
export const ConfiguredEventPattern = (topic: ConfiguredTopic) => EventPattern(`${PREFIX}${topic}`);

/**
 * The pattern a handler is registered under: the configured topic for a ConfiguredEventPattern, any other
 * pattern as it is. A role without a configured name fails the bootstrap rather than subscribing to nothing.
 */
export function resolveTopicPattern(
  pattern: unknown,
  topics: Partial<Record<ConfiguredTopic, string>>,
): unknown {
  if (typeof pattern !== 'string' || !pattern.startsWith(PREFIX)) {
    return pattern;
  }
  const role = pattern.slice(PREFIX.length);
  const name = (topics as Record<string, string | undefined>)[role];
  if (!name) {
    throw new Error(`no topic configured for the handler of '${role}'`);
  }
  return name;
}
