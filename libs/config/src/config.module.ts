import { Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { loadConfig } from './load-config';

/** Provides the validated `AppConfig` everywhere. Boot fails here, naming the variable, if the env is wrong. */
@Global()
@Module({
  providers: [{ provide: AppConfig, useFactory: () => loadConfig() }],
  exports: [AppConfig],
})
export class ConfigModule {}
