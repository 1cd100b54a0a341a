import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { TerminusModule } from '@nestjs/terminus';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { KafkaModule } from '@app/kafka';
import { LoggerModule } from 'nestjs-pino';
import { loggingParams, ObservabilityModule } from '@app/observability';
import { DistributedLockModule } from '@app/distributed-lock';
import { REDIS_CLIENT, RedisModule } from '@app/redis';
import type Redis from 'ioredis';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { CatalogueModule } from './catalogue/catalogue.module';
import { ExpiryModule } from './expiry/expiry.module';
import { HealthModule } from './health/health.module';
import { HoldsModule } from './holds/holds.module';
import { PricingModule } from './pricing/pricing.module';
import { QueueModule } from './queue/queue.module';
import { StaffHoldsModule } from './holds/admin/staff-holds.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { SeatMapModule } from './seat-map/seat-map.module';
import { SeatPickerModule } from './seat-picker/seat-picker.module';
import { WaitlistModule } from './waitlist/waitlist.module';

/**
 * The seat-hold service: infrastructure modules first, then one module per capability.
 * Capability modules: catalogue (events, seats), holds (hold/extend/release/confirm), seat map (snapshot
 * per event, live stream), expiry (sweeper + outbox relay to Kafka).
 */
@Module({
  imports: [
    ConfigModule.forRoot(AppConfig), // the seat API's variables only (SeatApiEnvironment)
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => loggingParams({ ...config.log, app: 'seat-api' }),
    }),
    ObservabilityModule,
    TerminusModule,
    DatabaseModule.forRootAsync({ inject: [AppConfig], useFactory: (c: AppConfig) => c.database }),
    RedisModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (c: AppConfig) => ({ ...c.redis, name: 'seat-hold' }),
    }),
    KafkaModule.forRootAsync({ inject: [AppConfig], useFactory: (c: AppConfig) => c.kafka }),
    DistributedLockModule.forRootAsync({
      inject: [REDIS_CLIENT, AppConfig],
      // watchdog-mode locks (shard leases, the reconciler) live for HOLD_SHARD_LEASE_MS past a death
      useFactory: (redis: Redis, c: AppConfig) => ({
        redis,
        keyPrefix: 'lock:',
        watchdogLeaseMs: c.holds.shardLeaseMs,
      }),
    }),
    ScheduleModule.forRoot(),
    AuthModule,
    RateLimitModule, // after AuthModule: its guard keys on the user the JWT guard found
    CatalogueModule,
    PricingModule, // price lists and promo codes; the one calculator every priced answer uses
    QueueModule, // on-sale queues: set up by staff, joined by shoppers, the gate of holds
    HoldsModule,
    StaffHoldsModule, // box-office staff: agent and admin actions on holds, audited
    AuditModule,
    SeatMapModule,
    ExpiryModule,
    HealthModule,
    WaitlistModule, // join, read and leave a show's waiting list
    SeatPickerModule, // the seat picker page at /
  ],
})
export class AppModule {}
