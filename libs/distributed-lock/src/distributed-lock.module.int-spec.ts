/**
 * DistributedLockModule built with Nest's ConfigurableModuleBuilder: forRoot, and forRootAsync
 * with useFactory, useClass or useExisting, each giving a working lock service against the real Redis.
 */
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import {
  DistributedLockModule,
  DistributedLockModuleOptions,
  DistributedLockOptionsFactory,
  DistributedLockService,
} from '.';
import { testRedis } from '@test/support/distributed-lock';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(() => redis.quit());

const REDIS = Symbol('REDIS');

@Module({ providers: [{ provide: REDIS, useFactory: () => redis }], exports: [REDIS] })
class RedisHolderModule {}

@Injectable()
class LockOptions implements DistributedLockOptionsFactory {
  createDistributedLockOptions(): DistributedLockModuleOptions {
    return { redis, keyPrefix: 'lock-by-class:' };
  }
}

@Module({ providers: [LockOptions], exports: [LockOptions] })
class LockOptionsModule {}

async function lockedOnce(module: ReturnType<typeof DistributedLockModule.forRoot>, prefix: string) {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  await moduleRef.init();
  const locks = moduleRef.get(DistributedLockService);
  const lock = await locks.acquire('module-test', { leaseMs: 5000 });
  expect(await redis.exists(`${prefix}{module-test}`)).toBe(1); // the options really reached the service
  expect(await lock.release()).toBe('RELEASED');
  await moduleRef.close();
}

it('forRoot({ redis }) gives a working lock service', async () => {
  await lockedOnce(DistributedLockModule.forRoot({ redis, keyPrefix: 'lock-root:' }), 'lock-root:');
});

it('forRootAsync with useFactory and inject (the app module’s form)', async () => {
  await lockedOnce(
    DistributedLockModule.forRootAsync({
      imports: [RedisHolderModule],
      inject: [REDIS],
      useFactory: (r: Redis) => ({ redis: r, keyPrefix: 'lock-factory:' }),
    }),
    'lock-factory:',
  );
});

it('forRootAsync with useClass', async () => {
  await lockedOnce(DistributedLockModule.forRootAsync({ useClass: LockOptions }), 'lock-by-class:');
});

it('forRootAsync with useExisting', async () => {
  await lockedOnce(
    DistributedLockModule.forRootAsync({ imports: [LockOptionsModule], useExisting: LockOptions }),
    'lock-by-class:',
  );
});
