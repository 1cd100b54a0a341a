import { TerminusModule } from '@nestjs/terminus';
import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';
import { connectRedis, createRedisClient } from './create-redis-client';
import { evictionRisk, readMaxmemoryPolicy } from './eviction-policy';
import { RedisClient } from './redis-client-options';
import { REDIS_CLIENT } from './redis.constants';
import { RedisHealthIndicator } from './redis.health';
import { ConfigurableRedisModule, REDIS_MODULE_OPTIONS, RedisModuleOptions } from './redis.module-definition';

/**
 * One Redis client for the app: a single Redis (`url`) or a Redis Cluster (`clusterNodes`), under
 * `keyPrefix`. `RedisModule.forRoot(options)` or `.forRootAsync({ inject, useFactory })` (or useClass /
 * useExisting); the app decides where the options come from (the seat API: its AppConfig). Boot waits
 * until the client is ready, and warns when Redis may evict keys (see eviction-policy.ts; the health
 * indicator then reports Redis as degraded). Global: every module gets REDIS_CLIENT without importing it.
 */
@Global()
@Module({
  imports: [TerminusModule],
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [REDIS_MODULE_OPTIONS],
      useFactory: async ({ warnOnEvictionPolicy = true, ...options }: RedisModuleOptions) => {
        const client = createRedisClient(options);
        await connectRedis(client);
        if (warnOnEvictionPolicy) {
          await warnOnUnsafeEvictionPolicy(client);
        }
        return client;
      },
    },
    RedisHealthIndicator,
  ],
  exports: [REDIS_CLIENT, RedisHealthIndicator],
})
export class RedisModule extends ConfigurableRedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly client: RedisClient) {
    super();
  }

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
async function warnOnUnsafeEvictionPolicy(client: Redis | Cluster): Promise<void> {
  const logger = new Logger('Redis');
  const policy = await readMaxmemoryPolicy(client);
  const risk = evictionRisk(policy);
  if (risk) {
    logger.warn(`UNSAFE REDIS CONFIGURATION: ${risk}`);
  } else if (policy === 'unknown') {
    logger.warn('could not read maxmemory-policy (CONFIG and INFO unavailable): make sure it is noeviction');
  }
}
