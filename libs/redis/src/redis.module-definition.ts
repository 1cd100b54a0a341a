import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { RedisClientOptions } from './redis-client-options';

/** What RedisModule is given: the client's options, and nothing of the app that uses it. */
export interface RedisModuleOptions extends RedisClientOptions {
  /**
   * Warn at boot when Redis's maxmemory-policy may evict keys (default true). A service whose keys may be
   * lost (a cache) turns it off; one that keeps locks and holds in Redis must not.
   */
  warnOnEvictionPolicy?: boolean;
}

/** The options token, for providers that need the settings the client was built from. */
export const REDIS_MODULE_OPTIONS = Symbol('REDIS_MODULE_OPTIONS');

/**
 * forRoot(options) and forRootAsync({ useFactory | useClass | useExisting, inject, imports }), built by
 * Nest as @nestjs/cache-manager builds CacheModule's (and as DistributedLockModule is). A useClass or
 * useExisting factory implements `createRedisOptions()`.
 */
export const {
  ConfigurableModuleClass: ConfigurableRedisModule,
  OPTIONS_TYPE: REDIS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: REDIS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<RedisModuleOptions>({
  moduleName: 'Redis',
  optionsInjectionToken: REDIS_MODULE_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createRedisOptions')
  .build();

/** What a useClass/useExisting options factory implements. */
export interface RedisOptionsFactory {
  createRedisOptions(): RedisModuleOptions | Promise<RedisModuleOptions>;
}

export type RedisModuleAsyncOptions = typeof REDIS_ASYNC_OPTIONS_TYPE;
