/**
 * RedisModule takes its own options: forRoot, and forRootAsync with useFactory/inject or
 * useClass, each giving a connected client with the options it was given, against the real Redis. No
 * AppConfig and no ConfigModule anywhere in these modules: the library can be lifted into another service.
 */
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { RedisClient, RedisModuleOptions, RedisOptionsFactory, REDIS_CLIENT, RedisModule } from '.';

const url = process.env.REDIS_URL!;
const prefix = process.env.REDIS_KEY_PREFIX!;
const SETTINGS = Symbol('SETTINGS');

@Module({ providers: [{ provide: SETTINGS, useValue: { url } }], exports: [SETTINGS] })
class SettingsModule {}

@Injectable()
class RedisOptions implements RedisOptionsFactory {
  createRedisOptions(): RedisModuleOptions {
    return {
      url,
      keyPrefix: `${prefix}by-class:`,
      connectTimeoutMs: 1000,
      commandTimeoutMs: 1000,
      name: 'by-class',
    };
  }
}

/** Boots the module alone, writes one key through the client and reads it back without the prefix. */
async function roundTrip(module: ReturnType<typeof RedisModule.forRoot>, keyPrefix: string): Promise<void> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  await moduleRef.init();
  try {
    const client = moduleRef.get<RedisClient>(REDIS_CLIENT);
    expect(client.status).toBe('ready'); // boot waited for Redis
    await client.set('module-test', 'v', 'PX', 10_000);
    const bare = new Redis(url, { lazyConnect: true });
    try {
      expect(await bare.get(`${keyPrefix}module-test`)).toBe('v'); // the options really reached the client
    } finally {
      bare.disconnect();
    }
  } finally {
    await moduleRef.close();
  }
}

describe(RedisModule.name, () => {
  it('forRoot(options)', async () => {
    await roundTrip(
      RedisModule.forRoot({
        url,
        keyPrefix: `${prefix}root:`,
        connectTimeoutMs: 1000,
        commandTimeoutMs: 1000,
      }),
      `${prefix}root:`,
    );
  });

  it('forRootAsync with useFactory and inject', async () => {
    await roundTrip(
      RedisModule.forRootAsync({
        imports: [SettingsModule],
        inject: [SETTINGS],
        useFactory: (s: { url: string }) => ({
          url: s.url,
          keyPrefix: `${prefix}factory:`,
          connectTimeoutMs: 1000,
          commandTimeoutMs: 1000,
        }),
      }),
      `${prefix}factory:`,
    );
  });

  it('forRootAsync with useClass', async () => {
    await roundTrip(RedisModule.forRootAsync({ useClass: RedisOptions }), `${prefix}by-class:`);
  });
});
