import { Controller, Get } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { KafkaHealthIndicator } from '../kafka.health';
import { GroupMembership } from './group-membership';

/** /health of a consumer app (apps/expiry-consumer, apps/waitlist); /health/live answers while it runs. */
@Controller('health')
export class ConsumerHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly kafka: KafkaHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly membership: GroupMembership,
  ) {}

  /** Ready = PostgreSQL and Kafka answer and the consumer has joined its group. */
  @Get()
  @HealthCheck()
  check() {
    return this.health.check([
      () => this.db.pingCheck('postgres', { timeout: 2000 }),
      () => this.kafka.isHealthy('kafka'),
      () => {
        const i = this.indicators.check('consumerGroup');
        return this.membership.joined
          ? i.up({ memberId: this.membership.memberId })
          : i.down({ message: 'not joined yet' });
      },
    ]);
  }

  @Get('live')
  live() {
    return { status: 'ok' };
  }
}
