import { Cluster } from 'ioredis';
import { keySlot } from './key-slot';
import { reconnectDelayMs, RedisClientOptions, RedisNode } from './redis-client-options';
import { Call, evalshaOrEval, scriptSha } from './script-commands';

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
 * is passed per call (`defineCommand(name, { lua })`, as libs/distributed-lock and the rate-limit sync
 * do) has that count as its first argument, so calls for keys on different masters landed in one
 * pipeline and all failed ("All keys in the pipeline should belong to the same slots allocation group").
 * Such a script is therefore never auto-pipelined under its own name; instead (scriptsByTheirKeys) a call
 * on the client itself goes out as a plain EVALSHA, which ioredis routes and auto-pipelines by its first
 * real key. Sent on its own, each lock acquire and release was one more socket write (and one more read
 * for Redis) per hold than on a single Redis, where it shares the tick's batch (bench:cluster's profile).
 */
function pipelineOnlyScriptsWithFixedKeyCount(cluster: Cluster): void {
  const define = cluster.defineCommand.bind(cluster);
  cluster.defineCommand = (name, definition) => {
    define(name, definition);
    if (typeof definition.numberOfKeys !== 'number') {
      cluster.options.autoPipeliningIgnoredCommands!.push(name);
      scriptByItsKeys(cluster, name, definition.lua);
    }
  };
}

type ScriptCall = (this: unknown, ...args: unknown[]) => Promise<unknown>;

/**
 * Replaces the client's `name` command (key count passed first) by one that, when auto-pipelining is on,
 * sends `EVALSHA sha numkeys keys... args...` (and EVAL when the node answers NOSCRIPT, as ioredis's own
 * script commands do), so the call joins the auto-pipeline of its keys' master. Left to ioredis as before:
 * calls on an explicit pipeline or transaction (`this` is not the client), calls with a callback, calls
 * without keys, and calls whose keys span slots (Redis refuses them with CROSSSLOT; in an auto-pipeline
 * ioredis would fail every command batched with them).
 */
function scriptByItsKeys(cluster: Cluster, name: string, lua: string): void {
  const sha = scriptSha(lua);
  const commands = cluster as unknown as Record<string, ScriptCall>;
  const evalsha = cluster.evalsha.bind(cluster) as unknown as Call;
  const evalScript = cluster.eval.bind(cluster) as unknown as Call;
  const alone = commands[name];
  commands[name] = function (this: unknown, ...args: unknown[]) {
    if (this !== cluster || !cluster.options.enableAutoPipelining || !keysInOneSlot(cluster, args)) {
      return alone.apply(this, args);
    }
    return evalshaOrEval(evalsha, evalScript, sha, lua, args);
  };
}

/**
 * args = [numkeys, ...keys, ...argv], no callback: at least one key, every one in the same slot. Keys
 * sharing one `{hash tag}` (a lock's keys do) are in one slot without hashing them; others are hashed.
 */
function keysInOneSlot(cluster: Cluster, args: unknown[]): boolean {
  const count = Number(args[0]);
  if (!Number.isInteger(count) || count < 1 || args.length < 1 + count || typeof args.at(-1) === 'function') {
    return false;
  }
  const keys = args.slice(1, 1 + count);
  if (!keys.every((k) => typeof k === 'string')) {
    return false;
  }
  const prefix = cluster.options.keyPrefix ?? '';
  const tag = prefix.includes('{') ? undefined : hashTag(keys[0]);
  if (count === 1 || (tag !== undefined && keys.every((k) => hashTag(k) === tag))) {
    return true;
  }
  const slot = keySlot(prefix + keys[0]);
  return keys.every((k) => keySlot(prefix + k) === slot);
}

/** The part of a key Redis Cluster hashes when it has one: between its first `{` and the next `}`. */
function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}
