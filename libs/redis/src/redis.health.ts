import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import Redis, { Cluster } from 'ioredis';
import { evictionRisk, readMaxmemoryPolicy } from './eviction-policy';
import { REDIS_CLIENT } from './redis.constants';

/**
 * Redis is a hard dependency: down when it does not answer PING. Degraded (still serving, HTTP 200)
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
    try {
      await this.client.ping();
    } catch (e) {
      return indicator.down({ message: (e as Error).message, connection: this.client.status });
    }
    const latencyMs = Math.round(performance.now() - started);
    const maxmemoryPolicy = await readMaxmemoryPolicy(this.client);
    const risk = evictionRisk(maxmemoryPolicy);
    return risk
      ? indicator.degraded({ latencyMs, maxmemoryPolicy, message: risk })
      : indicator.up({ latencyMs, maxmemoryPolicy });
  }
}
