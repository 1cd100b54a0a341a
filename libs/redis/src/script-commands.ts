import { createHash } from 'node:crypto';

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
