import { Cluster } from 'ioredis';
import { reconnectDelayMs, RedisClientOptions, RedisNode } from './redis-client-options';

/**
 * A Redis Cluster client that behaves like the single-node one (create-redis-client.ts):
 * - the key prefix is the Cluster's own option: the Cluster builds every command and script, and hashes
 *   the prefixed key to find its slot (a prefix has no `{`, so a key's hash tag still picks the slot);
 * - scripts are defined with defineCommand as on one Redis: EVALSHA, and EVAL when a node answers
 *   NOSCRIPT (scripts are cached per node and lost on a restart or failover);
 * - fail fast: no offline queue, the command timeout on every node; a command that meets a failover
 *   (connection closed, CLUSTERDOWN, TRYAGAIN) is retried every 100 ms at most 16 times, so it fails
 *   after about 1.6 s plus one command timeout rather than waiting for the election;
 * - reads and writes go to masters only: a replica lags, and a hold read from one could be stale.
 */
export function createClusterClient(options: RedisClientOptions, nodes: RedisNode[]): Cluster {
  const cluster = new Cluster(nodes, {
    keyPrefix: options.keyPrefix,
    enableAutoPipelining: options.autoPipelining ?? false,
    autoPipeliningIgnoredCommands: [], // this client's own list (see below), not ioredis's shared default
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
  pipelineOnlyScriptsWithFixedKeyCount(cluster);
  return cluster;
}

/**
 * ioredis groups auto-pipelined commands by the node of their first argument. A script whose key count
 * is passed per call (`defineCommand(name, { lua })`, as libs/distributed-lock does) has that count as
 * its first argument, so calls for keys on different masters landed in one pipeline and all failed
 * ("All keys in the pipeline should belong to the same slots allocation group"). Such scripts are sent
 * on their own, routed by their real keys; scripts with `numberOfKeys` keep auto-pipelining.
 */
function pipelineOnlyScriptsWithFixedKeyCount(cluster: Cluster): void {
  const define = cluster.defineCommand.bind(cluster);
  cluster.defineCommand = (name, definition) => {
    if (typeof definition.numberOfKeys !== 'number') {
      cluster.options.autoPipeliningIgnoredCommands!.push(name);
    }
    define(name, definition);
  };
}
