import { Logger } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';
import { createClusterClient } from './create-cluster-client';
import { reconnectDelayMs, RedisClient, RedisClientOptions } from './redis-client-options';

/**
 * An ioredis client that fails fast instead of hanging: no offline queue (a command sent while
 * disconnected is rejected at once), a bounded command timeout and one retry per request.
 * It keeps reconnecting in the background (capped backoff), so it recovers when Redis returns.
 * With `clusterNodes` it is an ioredis Cluster with the same behaviour (create-cluster-client.ts).
 */
export function createRedisClient(options: RedisClientOptions): RedisClient {
  let client: RedisClient;
  if (options.clusterNodes?.length) {
    client = createClusterClient(options, options.clusterNodes);
  } else if (options.url) {
    client = new Redis(options.url, {
      keyPrefix: options.keyPrefix,
      connectionName: options.name,
      connectTimeout: options.connectTimeoutMs,
      commandTimeout: options.commandTimeoutMs,
      enableAutoPipelining: options.autoPipelining ?? false,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: reconnectDelayMs,
      reconnectOnError: () => false,
    });
  } else {
    throw new Error('createRedisClient needs a url (single Redis) or clusterNodes (Redis Cluster)');
  }
  logConnectionChanges(client, options.name);
  return client;
}

/** One line when the connection is lost and one when it is back, not one per failed retry. */
function logConnectionChanges(client: RedisClient, name = 'client'): void {
  const logger = new Logger(`Redis(${name})`);
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
}

/**
 * Connects and waits for READY, or throws (boot must not hang on Redis). A single Redis fails after its
 * connect timeout. A Cluster is ready once a seed answered with the slot map and CLUSTER INFO says ok; it
 * fails at once when no seed answers, but while the cluster reports a failure ioredis retries without
 * ever settling, hence the deadline.
 */
export async function connectRedis(client: RedisClient, clusterDeadlineMs = 10_000): Promise<void> {
  if (client.status === 'ready') {
    return;
  }
  if (!(client instanceof Cluster)) {
    await (client.status === 'wait' ? client.connect() : untilReady(client));
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      client.disconnect();
      reject(new Error(`Redis Cluster not ready within ${clusterDeadlineMs} ms (status ${client.status})`));
    }, clusterDeadlineMs);
  });
  try {
    await Promise.race([client.status === 'wait' ? client.connect() : untilReady(client), deadline]);
  } catch (e) {
    client.disconnect(); // no reconnecting in the background for a client boot gave up on
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

function untilReady(client: RedisClient): Promise<void> {
  return new Promise<void>((resolve, reject) => {
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
