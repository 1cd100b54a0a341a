import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ExpiryModule } from '../expiry/expiry.module';
import { HealthController } from './health.controller';

@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json', gracefulShutdownTimeoutMs: 0 }), ExpiryModule],
  controllers: [HealthController],
})
export class HealthModule {}
