import Redis, { Cluster } from 'ioredis';

/**
 * A plain client of the tests' Redis: the single Redis of REDIS_URL, or, in the cluster run
 * (TEST_REDIS=cluster, see test/setup/global-setup.ts), an ioredis Cluster on REDIS_CLUSTER_NODES with the
 * same options. Typed as Redis: the commands tests use are the same on both.
 */
export function testRedisClient(options: { keyPrefix?: string } = {}): Redis {
  const nodes = process.env.REDIS_CLUSTER_NODES;
  if (nodes) {
    const seeds = nodes.split(',').map((n) => {
      const at = n.lastIndexOf(':');
      return { host: n.slice(0, at), port: Number(n.slice(at + 1)) };
    });
    return new Cluster(seeds, { keyPrefix: options.keyPrefix, scaleReads: 'master' }) as unknown as Redis;
  }
  return new Redis(process.env.REDIS_URL!, options);
}
