import { Logger } from '@nestjs/common';
import Redis from 'ioredis';

export interface RedisClientOptions {
  url: string;
  keyPrefix?: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Batch the commands of one event-loop turn into one write (ioredis enableAutoPipelining). */
  autoPipelining?: boolean;
  /** Connection name shown by CLIENT LIST: helps when reading a busy Redis. */
  name?: string;
}

/**
 * An ioredis client that fails fast instead of hanging: no offline queue (a command sent while
 * disconnected is rejected at once), a bounded command timeout and one retry per request.
 * It keeps reconnecting in the background (capped backoff), so it recovers when Redis returns.
 */
export function createRedisClient(options: RedisClientOptions): Redis {
  const logger = new Logger(`Redis(${options.name ?? 'client'})`);
  const client = new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    connectionName: options.name,
    connectTimeout: options.connectTimeoutMs,
    commandTimeout: options.commandTimeoutMs,
    enableAutoPipelining: options.autoPipelining ?? false,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 5), 1000),
    reconnectOnError: () => false,
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (!down) {
      logger.warn(`connection problem: ${err.message}`);
    }
    down = true;
  });
  client.on('ready', () => {
    if (down) {
      logger.log('reconnected');
    }
    down = false;
  });
  return client;
}

/** Connects and waits for READY, or throws after the connect timeout (boot must not hang on Redis). */
export async function connectRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    return;
  }
  if (client.status === 'wait') {
    await client.connect();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onEnd = () => {
      cleanup();
      reject(new Error('Redis connection ended before it was ready'));
    };
    const cleanup = () => {
      client.off('ready', onReady);
      client.off('end', onEnd);
    };
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}
