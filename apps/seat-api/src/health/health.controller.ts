import { Controller, Get, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { KafkaHealthIndicator } from '@app/kafka';
import { RedisHealthIndicator } from '@app/redis';
import { Public } from '../auth/auth.decorators';
import { OutboxHealthIndicator } from './indicators/outbox.health';
import { ReplicasHealthIndicator } from './indicators/replicas.health';
import { ShutdownHealthIndicator } from './indicators/shutdown.health';

export class LivenessView {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

/** Probes stay at /health whatever API version the routes carry: load balancers are configured once. */
@ApiTags('health')
@Public()
@Controller({ path: 'health', version: VERSION_NEUTRAL })
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly kafka: KafkaHealthIndicator,
    private readonly outbox: OutboxHealthIndicator,
    private readonly replicas: ReplicasHealthIndicator,
    private readonly shutdown: ShutdownHealthIndicator,
  ) {}

  /**
   * Readiness. PostgreSQL and Redis are hard dependencies: 503 naming the one that is down. Kafka and
   * the outbox are not: without Kafka holds keep working and SeatExpired events wait in the outbox, so
   * they are reported `degraded` (overall status `degraded`, HTTP 200) and a load balancer keeps every
   * instance in rotation. Redis is degraded, not down, when its maxmemory-policy allows evictions, and
   * `redisReplicas` is degraded when REDIS_WAIT_REPLICAS is set and a master has too few answering
   * replicas (its slots refuse changes with 503 REPLICAS_UNAVAILABLE; reads go on).
   * From SIGTERM on, `shutdown` is down (503) while the instance drains (SHUTDOWN_DRAIN_MS).
   */
  @Get()
  @HealthCheck()
  @ApiOperation({
    summary:
      'Readiness: PostgreSQL and Redis (hard), Kafka and the SeatExpired outbox (degraded, still 200), 503 while shutting down',
    description:
      "for a load balancer: the body is Terminus's per-dependency report (not the error envelope); a 503 names what is down",
  })
  checkReadiness() {
    return this.health.check([
      () => this.shutdown.check('shutdown'),
      () => this.db.pingCheck('postgres', { timeout: 2000 }),
      () => this.redis.isHealthy('redis'),
      () => this.replicas.check('redisReplicas'),
      () => this.kafka.isHealthy('kafka', { required: false }),
      () => this.outbox.check('outbox'),
    ]);
  }

  /**
   * Liveness: the process answers; no dependency is consulted, so a Kafka outage never restarts pods.
   * It stays 200 while the instance drains on shutdown: draining is not a reason to kill it.
   */
  @Get('live')
  @ApiOperation({
    summary: 'Liveness (no dependencies)',
    description:
      'answers 200 while the process serves HTTP, whatever its dependencies do: for a restart probe',
  })
  @ApiOkResponse({ type: LivenessView })
  checkLiveness(): LivenessView {
    return { status: 'ok' };
  }
}
