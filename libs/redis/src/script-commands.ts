import { createHash } from 'node:crypto';
import { ReplyError } from 'ioredis';
import type { Cluster } from 'ioredis';
import { keySlot } from './key-slot';
import { luaCall, LuaNamed, luaScript, LuaScriptSpec } from './lua-script';
import type { RedisClient } from './redis-client-options';

/** The name Redis caches `lua` under (EVALSHA, SCRIPT LOAD). */
export const scriptSha = (lua: string): string => createHash('sha1').update(lua).digest('hex');

/** The error Redis's own refusals come as (ioredis exports it untyped). */
const RedisReplyError = ReplyError as new (message: string) => Error;

/** What a script call sends: EVALSHA and EVAL, the same way on a single Redis and on a Cluster. */
interface ScriptSender {
  evalsha(sha: string, ...numkeysKeysArgs: (string | number)[]): Promise<unknown>;
  eval(lua: string, ...numkeysKeysArgs: (string | number)[]): Promise<unknown>;
}

/**
 * A Lua script whose key count is passed per call (a lock of any number of keys, a batch of counters),
 * run on either client as `EVALSHA sha numkeys keys... args...`, and as `EVAL` when the node answers
 * NOSCRIPT (its script cache was emptied: a restart, a failover, SCRIPT FLUSH). Any other error is the
 * caller's.
 *
 * Not ioredis's defineCommand, because of how a Cluster client auto-pipelines: it queues each command in
 * the batch of the nodes serving its first key (autoPipelining.js, getFirstKeyForCommand). For EVALSHA,
 * a command @ioredis/commands knows, that key is the one after numkeys. A defined script's name is
 * unknown there, so ioredis takes its first argument instead, which is the key count when the count is
 * passed per call: calls for keys on different masters shared one batch, and ioredis fails such a batch
 * whole ("All keys in the pipeline should belong to the same slots allocation group"). A script with a
 * fixed key count (defineCommand's numberOfKeys) has its first key first, so it is routed right and
 * stays defined with defineCommand.
 *
 * defineCommand sends the whole script on a connection's first call; this sends EVALSHA until a node
 * answers NOSCRIPT, so after a restart or failover that node's first call takes one more round trip, and
 * its EVAL leaves after the rest of its batch (the lock's pipelined sections allow for that order).
 */
export class RedisScript {
  readonly sha: string;

  constructor(readonly lua: string) {
    this.sha = scriptSha(lua);
  }

  run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (redis.isCluster && !inOneSlot(redis as Cluster, keys)) {
      // Refused before it is queued: Redis would refuse it too, and in an auto-pipelined batch ioredis
      // fails every command sent with it.
      return Promise.reject(new RedisReplyError("CROSSSLOT Keys in request don't hash to the same slot"));
    }
    const client = redis as unknown as ScriptSender;
    const call = [keys.length, ...keys, ...args];
    return client
      .evalsha(this.sha, ...call)
      .catch((err: Error) =>
        err.message.includes('NOSCRIPT') ? client.eval(this.lua, ...call) : Promise.reject(err),
      );
  }
}

/** Every key (with the client's prefix, which the Cluster hashes too) in one hash slot. */
function inOneSlot(cluster: Cluster, keys: readonly string[]): boolean {
  if (keys.length < 2) {
    return true;
  }
  const prefix = cluster.options.keyPrefix ?? '';
  const slot = keySlot(prefix + keys[0]);
  return keys.every((k, i) => i === 0 || keySlot(prefix + k) === slot);
}

/**
 * A script of a manifest (LuaScriptSpec), called by the names the manifest gives its keys and arguments
 * (luaCall): the one way the service runs a script that is not a function of the hold library. Runs as
 * RedisScript does: EVALSHA, EVAL after NOSCRIPT, on a single Redis and on a Cluster alike.
 */
export class LuaScript<S extends LuaScriptSpec> {
  private readonly script: RedisScript;

  /** `dir`: the folder the manifest's paths are relative to (the __dirname of the manifest's module). */
  constructor(
    readonly dir: string,
    readonly spec: S,
  ) {
    this.script = new RedisScript(luaScript(dir, spec));
  }

  run(redis: RedisClient, keys: LuaNamed<S['keys']>, args: LuaNamed<S['argv']>): Promise<unknown> {
    const call = luaCall(this.spec, keys, args);
    return this.script.run(redis, call.keys, call.args);
  }
}
