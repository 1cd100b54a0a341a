import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import Redis from 'ioredis';
import { REDIS_CLIENT } from './redis.constants';

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS_CLIENT) private readonly client: Redis,
    private readonly health: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'redis') {
    const indicator = this.health.check(key);
    const started = performance.now();
    try {
      await this.client.ping();
      return indicator.up({ latencyMs: Math.round(performance.now() - started) });
    } catch (e) {
      return indicator.down({ message: (e as Error).message, connection: this.client.status });
    }
  }
}
