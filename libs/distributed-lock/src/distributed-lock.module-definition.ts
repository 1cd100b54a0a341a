import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { DistributedLockModuleOptions } from './distributed-lock.options';

/** The options token; kept as the symbol earlier versions exported, so custom providers still find it. */
export const DISTRIBUTED_LOCK_OPTIONS = Symbol('DISTRIBUTED_LOCK_OPTIONS');

/**
 * forRoot(options) and forRootAsync({ useFactory | useClass | useExisting, inject, imports }), built by
 * Nest as @nestjs/cache-manager builds CacheModule's. A useClass/useExisting factory implements
 * `createDistributedLockOptions()`.
 */
export const {
  ConfigurableModuleClass: ConfigurableDistributedLockModule,
  OPTIONS_TYPE: DISTRIBUTED_LOCK_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: DISTRIBUTED_LOCK_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<DistributedLockModuleOptions>({
  moduleName: 'DistributedLock',
  optionsInjectionToken: DISTRIBUTED_LOCK_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createDistributedLockOptions')
  .build();

/** What a useClass/useExisting options factory implements. */
export interface DistributedLockOptionsFactory {
  createDistributedLockOptions(): DistributedLockModuleOptions | Promise<DistributedLockModuleOptions>;
}

export type DistributedLockModuleAsyncOptions = typeof DISTRIBUTED_LOCK_ASYNC_OPTIONS_TYPE;
