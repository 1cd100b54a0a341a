import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AppConfig } from '@app/config';
import { REDIS_CLIENT, RedisClient, replicaCoverage } from '@app/redis';

/**
 * With REDIS_WAIT_REPLICAS > 0, a change is answered only once that many replicas of its master have
 * it. A master with fewer answering replicas (one stopped or frozen, or a promoted replica that has none
 * of its own yet) refuses every change on its slots with 503 REPLICAS_UNAVAILABLE while reads still
 * work: `degraded` (HTTP 200, the instance serves everything else), naming each such master and the
 * share of hash slots it takes with it. Never `down`: another instance could not do better.
 */
@Injectable()
export class ReplicasHealthIndicator {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly config: AppConfig,
    private readonly health: HealthIndicatorService,
  ) {}

  async check(key = 'redisReplicas') {
    const indicator = this.health.check(key);
    const coverage = await replicaCoverage(this.redis, this.config.replicaAck.replicas);
    if (coverage.short.length === 0) {
      return indicator.up({ waitReplicas: coverage.wanted });
    }
    const names = coverage.short.map((m) => `${m.master} (${m.answering} of ${coverage.wanted})`);
    return indicator.degraded({
      waitReplicas: coverage.wanted,
      refusedShare: coverage.refusedShare,
      masters: coverage.short,
      message: `writes refused (503 REPLICAS_UNAVAILABLE) on ${Math.round(coverage.refusedShare * 100)} % of hash slots: too few answering replicas on ${names.join(', ')}`,
    });
  }
}
