import { Kafka, logLevel } from 'kafkajs';
import { kafkaLogCreator, KafkaLogOptions } from './kafka-log';

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  requestTimeoutMs: number;
  /** See KafkaLogOptions.repeatWindowMs (default 30 s). */
  logRepeatWindowMs?: number;
  /** See KafkaLogOptions.logger (default Nest's Logger). */
  logger?: KafkaLogOptions['logger'];
}

/**
 * kafkajs with bounded timeouts and its logs routed through Nest's logger (one format for all logs), at
 * warn at most and without a line per retry (kafka-log.ts).
 */
export function createKafka(settings: KafkaSettings): Kafka {
  return new Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers,
    connectionTimeout: Math.min(settings.requestTimeoutMs, 3000),
    requestTimeout: settings.requestTimeoutMs,
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 5 },
    // kafkajs's INFO (group joins, producer connects) would be a line per client per reconnect
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator({ logger: settings.logger, repeatWindowMs: settings.logRepeatWindowMs }),
  });
}
