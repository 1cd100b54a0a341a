import { createHash } from 'node:crypto';
import type Redis from 'ioredis';

/** A client method taken apart from its client (bound): arguments in, reply out. */
export type Call = (...args: unknown[]) => Promise<unknown>;

/** The name Redis caches `lua` under (EVALSHA, SCRIPT LOAD). */
export const scriptSha = (lua: string): string => createHash('sha1').update(lua).digest('hex');

/**
 * `EVALSHA sha args...`; `EVAL lua args...` when Redis answers NOSCRIPT (its script cache was emptied:
 * a restart, a failover, SCRIPT FLUSH). Any other error is the caller's.
 */
export function evalshaOrEval(evalsha: Call, evalScript: Call, sha: string, lua: string, args: unknown[]) {
  return evalsha(sha, ...args).catch((err: Error) =>
    err.message.includes('NOSCRIPT') ? evalScript(lua, ...args) : Promise.reject(err),
  );
}

/**
 * Makes every script defined on a single-node client (`defineCommand`) a plain EVALSHA.
 *
 * Why: ioredis runs a defined script through its own Script command class, which wraps every call (a
 * subclass instance whose toWritable allocates a closure, an extra promise for its NOSCRIPT retry, the
 * arguments copied twice). The seat hold sends such a call (its lock's acquire) beside one FCALL on every
 * request, where that wrapping was a measurable share of the service's holds/s in bench:http's A/B
 * runs. The Cluster client sends them as EVALSHA too (create-cluster-client.ts, to batch them by
 * their keys' master); this is the same call on one Redis.
 *
 * - Each connection loads the defined scripts when it becomes ready (and a script defined later, at
 *   once), so calls made from then on find them after a reconnect or a Redis restart. A call that still
 *   meets NOSCRIPT (one ioredis sends again on reconnecting, ahead of the load; a SCRIPT FLUSH) is sent
 *   again as EVAL.
 * - The key prefix is applied as before (ioredis prefixes EVALSHA's keys like the script's own).
 * - Left to ioredis: calls with a callback, and calls on pipelines and transactions (they copy the
 *   client's method, whose `this` is then not the client: it hands them to ioredis's own command).
 */
export function sendScriptsAsEvalsha(client: Redis): void {
  const scripts = new Map<string, string>(); // sha -> lua, for loading on each new connection
  const load = (lua: string) => void client.script('LOAD', lua).catch(() => undefined); // a call falls back to EVAL
  const define = client.defineCommand.bind(client);
  const evalsha = client.evalsha.bind(client) as unknown as Call;
  const evalScript = client.eval.bind(client) as unknown as Call;
  const commands = client as unknown as Record<string, Call>;
  client.defineCommand = (name, definition) => {
    define(name, definition);
    const { lua, numberOfKeys } = definition;
    const sha = scriptSha(lua);
    if (!scripts.has(sha)) {
      scripts.set(sha, lua);
      if (client.status === 'ready') {
        load(lua);
      }
    }
    const ioredisOwn = commands[name];
    commands[name] = function (this: unknown, ...args: unknown[]) {
      if (this !== client || typeof args.at(-1) === 'function') {
        return ioredisOwn.apply(this, args);
      }
      return evalshaOrEval(
        evalsha,
        evalScript,
        sha,
        lua,
        typeof numberOfKeys === 'number' ? [numberOfKeys, ...args] : args,
      );
    };
  };
  client.on('ready', () => scripts.forEach(load));
}
