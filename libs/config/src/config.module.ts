import { DynamicModule, Global, Module } from '@nestjs/common';
import type { BaseConfig } from './base-config';

/** A config class: the DI token, and a static `load` validating the app's environment. */
export interface ConfigClass<C extends BaseConfig> {
  new (...args: never[]): C;
  load(source?: NodeJS.ProcessEnv): C;
}

/**
 * `ConfigModule.forRoot(AppConfig)` (seat API) or `.forRoot(ExpiryConsumerConfig)`: provides the app's
 * validated config class everywhere (global). The environment is read when the provider is resolved,
 * that is when the app is created, not when a file is imported: `.env` is loaded before by the entry
 * point (dot-env.ts; the environment wins), and a test replaces the whole config with
 * `overrideProvider(AppConfig).useValue(...)` without touching process.env. Boot fails here, naming
 * every bad variable, when the environment is wrong.
 *
 * Why not @nestjs/config: its ConfigModule.forRoot validates when the module file is imported (once per
 * process, so a second app in one process sees the first one's environment) and writes every validated
 * default back into process.env; what it would add over this module (a string-keyed ConfigService, .env
 * loading, expansion) the apps do not use. The dependency was removed.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot<C extends BaseConfig>(config: ConfigClass<C>): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: config, useFactory: () => config.load() }],
      exports: [config],
    };
  }
}
