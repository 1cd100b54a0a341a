import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OutboxModule } from '../expiry/outbox/outbox.module';
import { HealthController } from './health.controller';
import { OutboxHealthIndicator } from './indicators/outbox.health';

@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json', gracefulShutdownTimeoutMs: 0 }), OutboxModule],
  controllers: [HealthController],
  providers: [OutboxHealthIndicator],
})
export class HealthModule {}
