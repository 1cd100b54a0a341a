import { TerminusModule } from '@nestjs/terminus';
import { Global, Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { createKafka } from './create-kafka';
import { KAFKA } from './kafka.constants';
import { KafkaHealthIndicator } from './kafka.health';

@Global()
@Module({
  imports: [TerminusModule],
  providers: [
    { provide: KAFKA, inject: [AppConfig], useFactory: (c: AppConfig) => createKafka(c.kafka) },
    KafkaHealthIndicator,
  ],
  exports: [KAFKA, KafkaHealthIndicator],
})
export class KafkaModule {}
