import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OutboxModule } from '../outbox/outbox.module';
import { HealthController } from './health.controller';
import { OutboxHealthIndicator } from './indicators/outbox.health';
import { ReplicasHealthIndicator } from './indicators/replicas.health';
import { ShutdownHealthIndicator } from './indicators/shutdown.health';
import { ShutdownState } from './shutdown/shutdown-state';

/**
 * Readiness and liveness. Terminus's own graceful-shutdown delay stays 0: it waits in
 * beforeApplicationShutdown, after Nest has begun closing and without readiness turning 503; the drain
 * happens before the close instead (bootstrap/graceful-shutdown.ts, ShutdownState).
 */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json', gracefulShutdownTimeoutMs: 0 }), OutboxModule],
  controllers: [HealthController],
  providers: [OutboxHealthIndicator, ReplicasHealthIndicator, ShutdownHealthIndicator, ShutdownState],
  exports: [ShutdownState],
})
export class HealthModule {}
