import { TerminusModule } from '@nestjs/terminus';
import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import Redis from 'ioredis';
import { connectRedis, createRedisClient } from './create-redis-client';
import { REDIS_CLIENT } from './redis.constants';
import { RedisHealthIndicator } from './redis.health';

/** The service's one Redis client, keyed under REDIS_KEY_PREFIX. Boot waits until it is ready. */
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
        return client;
      },
    },
    RedisHealthIndicator,
  ],
  exports: [REDIS_CLIENT, RedisHealthIndicator],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly client: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.client.status !== 'end') {
      await this.client.quit().catch(() => this.client.disconnect());
    }
  }
}
