import { TerminusModule } from '@nestjs/terminus';
import { Global, Module } from '@nestjs/common';
import { createKafka } from './create-kafka';
import { KAFKA } from './kafka.constants';
import { KafkaHealthIndicator } from './kafka.health';
import { ConfigurableKafkaModule, KAFKA_MODULE_OPTIONS, KafkaModuleOptions } from './kafka.module-definition';

/**
 * The app's kafkajs instance (clients are created from it per use) and its health indicator.
 * `KafkaModule.forRoot(options)` or `.forRootAsync({ inject, useFactory })` (or useClass / useExisting):
 * the app decides where the settings come from. Global: every module gets KAFKA without importing it.
 */
@Global()
@Module({
  imports: [TerminusModule],
  providers: [
    { provide: KAFKA, inject: [KAFKA_MODULE_OPTIONS], useFactory: (o: KafkaModuleOptions) => createKafka(o) },
    KafkaHealthIndicator,
  ],
  exports: [KAFKA, KafkaHealthIndicator],
})
export class KafkaModule extends ConfigurableKafkaModule {}
