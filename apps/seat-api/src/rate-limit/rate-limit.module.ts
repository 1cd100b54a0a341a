import { ExecutionContext, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, ThrottlerOptions } from '@nestjs/throttler';
import { AppConfig } from '@app/config';
import { RATE_LIMIT, RateLimitName } from './rate-limit.decorator';
import { RateLimitGuard } from './rate-limit.guard';
import { SyncedThrottlerStorage } from './synced-throttler.storage';

/** Holds the storage as a provider, so its sync timer follows the application's life. */
@Module({ providers: [SyncedThrottlerStorage], exports: [SyncedThrottlerStorage] })
class RateLimitStorageModule {}

/**
 * A named throttler applies only to the routes marked @RateLimited(name), and not at all when disabled.
 * Route metadata is fixed once the app is built: each handler's @RateLimited name is read once, as the
 * guard finds its throttler once (rate-limit.guard.ts, docs/adr/0008-hold-path-shortcuts.md).
 */
function limit(name: RateLimitName, perWindow: number, windowMs: number, enabled: boolean): ThrottlerOptions {
  const names = new WeakMap<object, unknown>();
  const nameOf = (handler: object): unknown => {
    if (!names.has(handler)) {
      names.set(handler, Reflect.getMetadata(RATE_LIMIT, handler));
    }
    return names.get(handler);
  };
  return {
    name,
    limit: perWindow,
    ttl: windowMs,
    skipIf: (ctx: ExecutionContext) => !enabled || nameOf(ctx.getHandler()) !== name,
  };
}

/**
 * Per-caller limits on hold creation, seat-map reads and seat-map stream opens (RATE_LIMIT_* settings),
 * shared by all instances through Redis. Import after AuthModule: the guard keys on the user the JWT
 * guard found (on public routes too, when a valid token came with the request).
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStorageModule],
      inject: [AppConfig, SyncedThrottlerStorage],
      useFactory: (config: AppConfig, storage: SyncedThrottlerStorage) => {
        const r = config.rateLimit;
        const windowMs = r.windowSeconds * 1000;
        return {
          throttlers: [
            limit('holdCreate', r.holdsPerWindow, windowMs, r.enabled),
            limit('seatMapRead', r.seatMapReadsPerWindow, windowMs, r.enabled),
            limit('streamOpen', r.streamOpensPerWindow, windowMs, r.enabled),
          ],
          storage,
          setHeaders: false,
        };
      },
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class RateLimitModule {}
