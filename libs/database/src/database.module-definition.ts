import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { DatabaseSettings } from './data-source-options';

/** What DatabaseModule is given: where PostgreSQL is and which schema, nothing of the app that uses it. */
export interface DatabaseModuleOptions extends DatabaseSettings {
  /**
   * Apply pending migrations before the DataSource opens (default true), under an advisory lock so that
   * instances booting together do not race. A deployment that migrates in a separate step turns it off.
   */
  migrationsRun?: boolean;
}

/** The options token, for providers that need the settings the DataSource was built from. */
export const DATABASE_MODULE_OPTIONS = Symbol('DATABASE_MODULE_OPTIONS');

/**
 * forRoot(options) and forRootAsync({ useFactory | useClass | useExisting, inject, imports }), built by
 * Nest as @nestjs/cache-manager builds CacheModule's. A useClass or useExisting factory implements
 * `createDatabaseOptions()`.
 */
export const {
  ConfigurableModuleClass: ConfigurableDatabaseOptionsModule,
  OPTIONS_TYPE: DATABASE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: DATABASE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<DatabaseModuleOptions>({
  moduleName: 'Database',
  optionsInjectionToken: DATABASE_MODULE_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createDatabaseOptions')
  .build();

/** What a useClass/useExisting options factory implements. */
export interface DatabaseOptionsFactory {
  createDatabaseOptions(): DatabaseModuleOptions | Promise<DatabaseModuleOptions>;
}

export type DatabaseModuleAsyncOptions = typeof DATABASE_ASYNC_OPTIONS_TYPE;
