import Redis, { Cluster } from 'ioredis';

/** The only policy under which Redis never drops a key to make room: locks, holds and fences stay. */
export const SAFE_EVICTION_POLICY = 'noeviction';

/**
 * Redis's maxmemory-policy: CONFIG GET, or where a managed Redis disables CONFIG, the
 * `maxmemory_policy` field of INFO memory; 'unknown' when neither answers. On a Cluster every master
 * is asked and the first policy that is not noeviction wins (one such node is enough to lose keys).
 */
export async function readMaxmemoryPolicy(client: Redis | Cluster): Promise<string> {
  if (client instanceof Cluster) {
    const policies = await Promise.all(client.nodes('master').map(readNodePolicy));
    return policies.find((p) => p !== SAFE_EVICTION_POLICY) ?? SAFE_EVICTION_POLICY;
  }
  return readNodePolicy(client);
}

async function readNodePolicy(node: Redis): Promise<string> {
  try {
    const reply: unknown = await node.config('GET', 'maxmemory-policy');
    // RESP2: ['maxmemory-policy', 'noeviction']; an empty list when CONFIG hides the parameter
    if (Array.isArray(reply) && typeof reply[1] === 'string') {
      return reply[1];
    }
  } catch {
    // disabled (renamed) or refused by an ACL: try INFO
  }
  try {
    const match = /^maxmemory_policy:(\S+)/m.exec(await node.info('memory'));
    if (match) {
      return match[1];
    }
  } catch {
    // INFO disabled too
  }
  return 'unknown';
}

/** Why a policy is unsafe for this service, or undefined when it is noeviction (or cannot be read). */
export function evictionRisk(policy: string): string | undefined {
  if (policy === SAFE_EVICTION_POLICY || policy === 'unknown') {
    return undefined;
  }
  return (
    `maxmemory-policy is ${policy}: under memory pressure Redis may evict locks, holds and fencing ` +
    `counters (seats sold twice, holds lost); set maxmemory-policy ${SAFE_EVICTION_POLICY}`
  );
}
