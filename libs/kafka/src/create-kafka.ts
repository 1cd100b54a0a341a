import { Logger } from '@nestjs/common';
import { Kafka, logLevel, LogEntry } from 'kafkajs';

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  requestTimeoutMs: number;
}

const levelName: Record<number, 'error' | 'warn' | 'log' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'log',
  [logLevel.DEBUG]: 'debug',
};

/** kafkajs with bounded timeouts and its logs routed through Nest's logger (one format for all logs). */
export function createKafka(settings: KafkaSettings): Kafka {
  return new Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers,
    connectionTimeout: Math.min(settings.requestTimeoutMs, 3000),
    requestTimeout: settings.requestTimeoutMs,
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 5 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, ...extra } = log;
        const logger = new Logger(`kafkajs:${namespace}`);
        const method = levelName[level] ?? 'log';
        logger[method](`${message} ${Object.keys(extra).length ? JSON.stringify(extra) : ''}`.trim());
      },
  });
}
