import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { KafkaHealthIndicator } from '@app/kafka';
import { RedisHealthIndicator } from '@app/redis';
import { Public } from '../auth/auth.decorators';
import { OutboxRelayService } from '../expiry/outbox-relay.service';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly kafka: KafkaHealthIndicator,
    private readonly relay: OutboxRelayService,
    private readonly indicators: HealthIndicatorService,
  ) {}

  /** Readiness: 200 when PostgreSQL, Redis and Kafka all answer, 503 naming the one that does not. */
  @Get()
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness of PostgreSQL, Redis and Kafka' })
  check() {
    return this.health.check([
      () => this.db.pingCheck('postgres', { timeout: 2000 }),
      () => this.redis.isHealthy('redis'),
      () => this.kafka.isHealthy('kafka'),
      // informational: a non-empty outbox is normal (and expected while Kafka is down), never a failure
      () => this.indicators.check('outbox').up({ ...this.relay.outboxState }),
    ]);
  }

  /** Liveness: the process answers; no dependency is consulted, so a Kafka outage never restarts pods. */
  @Get('live')
  @ApiOperation({ summary: 'Liveness (no dependencies)' })
  live() {
    return { status: 'ok' };
  }
}
