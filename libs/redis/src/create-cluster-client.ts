import { Cluster } from 'ioredis';
import { reconnectDelayMs, RedisClientOptions, RedisNode } from './redis-client-options';

/**
 * A Redis Cluster client that behaves like the single-node one (create-redis-client.ts):
 * - the key prefix is the Cluster's own option: the Cluster builds every command and script, and hashes
 *   the prefixed key to find its slot (a prefix has no `{`, so a key's hash tag still picks the slot);
 * - scripts run as on one Redis: EVALSHA, and EVAL when a node answers NOSCRIPT (scripts are cached per
 *   node and lost on a restart or failover); a script whose key count is passed per call runs through
 *   RedisScript (script-commands.ts), so auto-pipelining batches it with its first key's master;
 * - fail fast: no offline queue, the command timeout on every node; a command that meets a failover
 *   (connection closed, CLUSTERDOWN, TRYAGAIN) is retried every 100 ms at most 16 times, so it fails
 *   after about 1.6 s plus one command timeout rather than waiting for the election;
 * - reads and writes go to masters only: a replica lags, and a hold read from one could be stale.
 */
export function createClusterClient(options: RedisClientOptions, nodes: RedisNode[]): Cluster {
  return new Cluster(nodes, {
    keyPrefix: options.keyPrefix,
    enableAutoPipelining: options.autoPipelining ?? false,
    scaleReads: 'master',
    enableOfflineQueue: false,
    enableReadyCheck: true,
    lazyConnect: true,
    maxRedirections: 16,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: options.connectTimeoutMs,
    clusterRetryStrategy: reconnectDelayMs,
    redisOptions: {
      connectionName: options.name,
      connectTimeout: options.connectTimeoutMs,
      commandTimeout: options.commandTimeoutMs,
      maxRetriesPerRequest: 1,
      reconnectOnError: () => false,
    },
  });
}
