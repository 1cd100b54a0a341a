/**
 * KafkaModule takes its own options: forRoot, and forRootAsync with useFactory/inject or
 * useClass, each giving a kafkajs instance built from them that reaches the real broker. No AppConfig.
 *
 * @needs kafka
 */
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Kafka } from 'kafkajs';
import { KAFKA, KafkaHealthIndicator, KafkaModule, KafkaModuleOptions, KafkaOptionsFactory } from '.';

const brokers = process.env.KAFKA_BROKERS!.split(',');
const SETTINGS = Symbol('SETTINGS');

@Module({ providers: [{ provide: SETTINGS, useValue: { brokers } }], exports: [SETTINGS] })
class SettingsModule {}

@Injectable()
class KafkaOptions implements KafkaOptionsFactory {
  createKafkaOptions(): KafkaModuleOptions {
    return { brokers, clientId: 'by-class', requestTimeoutMs: 3000 };
  }
}

/** Boots the module alone and asks the broker for its metadata through the health indicator. */
async function reachesBroker(module: ReturnType<typeof KafkaModule.forRoot>): Promise<void> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  await moduleRef.init();
  try {
    expect(moduleRef.get<Kafka>(KAFKA)).toBeDefined();
    expect(await moduleRef.get(KafkaHealthIndicator).isHealthy('kafka', { timeoutMs: 5000 })).toEqual({
      kafka: expect.objectContaining({ status: 'up' }),
    });
  } finally {
    await moduleRef.close();
  }
}

describe(KafkaModule.name, () => {
  it('forRoot(options)', async () => {
    await reachesBroker(KafkaModule.forRoot({ brokers, clientId: 'root', requestTimeoutMs: 3000 }));
  });

  it('forRootAsync with useFactory and inject', async () => {
    await reachesBroker(
      KafkaModule.forRootAsync({
        imports: [SettingsModule],
        inject: [SETTINGS],
        useFactory: (s: { brokers: string[] }) => ({
          brokers: s.brokers,
          clientId: 'factory',
          requestTimeoutMs: 3000,
        }),
      }),
    );
  });

  it('forRootAsync with useClass', async () => {
    await reachesBroker(KafkaModule.forRootAsync({ useClass: KafkaOptions }));
  });
});
