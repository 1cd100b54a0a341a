import { Logger, LoggerService } from '@nestjs/common';
import { logCreator, LogEntry, logLevel } from 'kafkajs';

/**
 * kafkajs's levels on the app's logger. Its ERROR is our warn: kafkajs logs an error per failed
 * connection and per retry, although the caller (a producer, the relay, the health check) gets the
 * failure too and decides what it means; the app logs its own error once per outage.
 */
const LEVEL: Record<logLevel, 'warn' | 'log' | 'debug' | undefined> = {
  [logLevel.NOTHING]: undefined,
  [logLevel.ERROR]: 'warn',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'log',
  [logLevel.DEBUG]: 'debug',
};

export interface KafkaLogOptions {
  /** Where the lines go; default Nest's Logger, so whatever the app installed (pino in every app). */
  logger?: LoggerService;
  /**
   * Window in which identical lines (same namespace, level and message) are written once. The next one
   * after the window is written with how many were held back (`repeated`). Default 30 000 ms.
   */
  repeatWindowMs?: number;
}

interface Seen {
  since: number;
  held: number;
}

/** Bounds the memory of distinct lines: kafkajs messages name brokers and topics, so they are few. */
const MAX_DISTINCT = 1000;

/**
 * A kafkajs `logCreator` writing through Nest's logger, with the entry's fields as structured fields.
 * While a broker is down kafkajs repeats the same few lines for every connection attempt (about 100 a
 * minute with the relay, the health check and the topic check retrying): each distinct line is written
 * once per window, then again with the count of those it held back.
 */
export function kafkaLogCreator({ logger, repeatWindowMs = 30_000 }: KafkaLogOptions = {}): logCreator {
  const seen = new Map<string, Seen>();
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const method = LEVEL[level];
      if (!method) {
        return;
      }
      const { message, timestamp: _t, logger: _l, stack: _s, ...fields } = log;
      const key = `${namespace}\u0000${level}\u0000${message}`;
      const now = performance.now();
      const entry = seen.get(key);
      if (entry && now - entry.since < repeatWindowMs) {
        entry.held++;
        return;
      }
      const repeated = entry?.held ?? 0;
      if (!entry && seen.size >= MAX_DISTINCT) {
        seen.clear();
      }
      seen.set(key, { since: now, held: 0 });
      const line = {
        msg: repeated > 0 ? `${message} (repeated ${repeated} times in the last window)` : message,
        namespace: namespace || undefined,
        ...fields,
        ...(repeated > 0 ? { repeated } : {}),
      };
      if (logger) {
        logger[method]?.(line, 'kafkajs');
      } else {
        defaultLogger[method](line); // a Nest Logger adds its own context
      }
    };
}

const defaultLogger = new Logger('kafkajs');
