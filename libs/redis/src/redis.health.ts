import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import Redis, { Cluster } from 'ioredis';
import { evictionRisk, readMaxmemoryPolicy } from './eviction-policy';
import { REDIS_CLIENT } from './redis.constants';

/**
 * Redis is a hard dependency: down when it does not answer PING, or on a Cluster when CLUSTER INFO does
 * not say cluster_state:ok. Degraded (still serving, HTTP 200)
 * when its maxmemory-policy lets it evict keys: refusing traffic would not give evicted data back, but
 * an operator must see it. The policy is read on every check, so fixing it shows without a restart.
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS_CLIENT) private readonly client: Redis | Cluster,
    private readonly health: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'redis') {
    const indicator = this.health.check(key);
    const started = performance.now();
    let cluster: { clusterState?: string } = {};
    try {
      await this.client.ping();
      if (this.client instanceof Cluster) {
        // One node answering is not enough: while a master is lost and not yet replaced, its slots
        // refuse every command, and every node says so with cluster_state:fail.
        cluster = {
          clusterState: /cluster_state:(\w+)/.exec(await this.client.cluster('INFO'))?.[1] ?? 'unknown',
        };
      }
    } catch (e) {
      return indicator.down({ message: (e as Error).message, connection: this.client.status });
    }
    if (cluster.clusterState !== undefined && cluster.clusterState !== 'ok') {
      return indicator.down({ ...cluster, message: `cluster_state:${cluster.clusterState}` });
    }
    const latencyMs = Math.round(performance.now() - started);
    const maxmemoryPolicy = await readMaxmemoryPolicy(this.client);
    const risk = evictionRisk(maxmemoryPolicy);
    return risk
      ? indicator.degraded({ latencyMs, maxmemoryPolicy, ...cluster, message: risk })
      : indicator.up({ latencyMs, maxmemoryPolicy, ...cluster });
  }
}
