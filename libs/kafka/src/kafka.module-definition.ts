import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { KafkaSettings } from './create-kafka';

/** What KafkaModule is given: the client's settings, and nothing of the app that uses it. */
export type KafkaModuleOptions = KafkaSettings;

/** The options token, for providers that need the settings the client was built from. */
export const KAFKA_MODULE_OPTIONS = Symbol('KAFKA_MODULE_OPTIONS');

/**
 * forRoot(options) and forRootAsync({ useFactory | useClass | useExisting, inject, imports }), built by
 * Nest as @nestjs/cache-manager builds CacheModule's. A useClass or useExisting factory implements
 * `createKafkaOptions()`.
 */
export const {
  ConfigurableModuleClass: ConfigurableKafkaModule,
  OPTIONS_TYPE: KAFKA_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: KAFKA_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<KafkaModuleOptions>({
  moduleName: 'Kafka',
  optionsInjectionToken: KAFKA_MODULE_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createKafkaOptions')
  .build();

/** What a useClass/useExisting options factory implements. */
export interface KafkaOptionsFactory {
  createKafkaOptions(): KafkaModuleOptions | Promise<KafkaModuleOptions>;
}

export type KafkaModuleAsyncOptions = typeof KAFKA_ASYNC_OPTIONS_TYPE;
