import { TerminusModule } from '@nestjs/terminus';
import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import Redis, { Cluster } from 'ioredis';
import { connectRedis, createRedisClient } from './create-redis-client';
import { evictionRisk, readMaxmemoryPolicy } from './eviction-policy';
import { RedisClient } from './redis-client-options';
import { REDIS_CLIENT } from './redis.constants';
import { RedisHealthIndicator } from './redis.health';

/**
 * The service's one Redis client, keyed under REDIS_KEY_PREFIX: a single Redis (REDIS_URL) or a Redis
 * Cluster (REDIS_CLUSTER_NODES). Boot waits until it is ready, and warns when Redis may evict keys (see
 * eviction-policy.ts; /health then reports Redis as degraded).
 */
@Global()
@Module({
  imports: [TerminusModule],
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => {
        const client = createRedisClient({ ...config.redis, name: 'seat-hold' });
        await connectRedis(client);
        await warnOnEvictionPolicy(client);
        return client;
      },
    },
    RedisHealthIndicator,
  ],
  exports: [REDIS_CLIENT, RedisHealthIndicator],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly client: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.client.status !== 'end') {
      await this.client.quit().catch(() => this.client.disconnect());
    }
  }
}

/**
 * Warns, does not refuse: the data an eviction policy could drop is not gone yet, and a refusal would
 * take the whole service down over a setting an operator can change live. /health keeps reporting it.
 */
async function warnOnEvictionPolicy(client: Redis | Cluster): Promise<void> {
  const logger = new Logger('Redis');
  const policy = await readMaxmemoryPolicy(client);
  const risk = evictionRisk(policy);
  if (risk) {
    logger.warn(`UNSAFE REDIS CONFIGURATION: ${risk}`);
  } else if (policy === 'unknown') {
    logger.warn('could not read maxmemory-policy (CONFIG and INFO unavailable): make sure it is noeviction');
  }
}
