/** @DistributedLock inside Nest: DI, key functions, metadata of stacked decorators, non-HTTP callers. */
import { Injectable, Module } from '@nestjs/common';
import { Interval, ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { DistributedLock, DistributedLockModule, InvalidLockKeyError, currentLock } from '.';
import { DistributedLockService } from './distributed-lock.service';
import { eventually } from '@test/support/eventually';
import { sleep, testRedis } from '@test/support/distributed-lock';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(() => redis.quit());

function currentLockOrNone(): string {
  try {
    return currentLock().keys[0];
  } catch (e) {
    return (e as Error).name;
  }
}

@Injectable()
class SeatService {
  readonly events: string[] = [];

  @DistributedLock<[string, string[]]>({
    key: (eventId, seats) => seats.map((s) => `seat:{${eventId}}:${s}`),
    leaseMs: 2000,
    waitMs: 5000,
  })
  async hold(eventId: string, seats: string[], label: string): Promise<number> {
    const lock = currentLock();
    this.events.push(`start ${label}`);
    await sleep(30);
    this.events.push(`end ${label}`);
    return lock.fencingToken;
  }

  readonly tag = 'shard-7';

  // a `function` key reads the instance (here a tag; in the seat API the shard layout of the hold store)
  @DistributedLock<[string]>({
    key: function (this: SeatService, seat: string) {
      return `seat:{${this.tag}}:${seat}`;
    },
    leaseMs: 1000,
  })
  byInstance(_seat: string): Promise<readonly string[]> {
    return Promise.resolve(currentLock().keys);
  }

  // currentLock() read after an await: still this call's lock, whatever ran meanwhile
  @DistributedLock<[string]>({ key: (seat) => `late:${seat}`, leaseMs: 1000 })
  async readsLockLate(_seat: string): Promise<string> {
    await sleep(5);
    return currentLock().keys[0];
  }

  // an outer locked method awaiting an inner one: each sees its own lock, the outer's again after
  @DistributedLock<[string]>({ key: (seat) => `outer:${seat}`, leaseMs: 1000 })
  async outer(seat: string): Promise<string[]> {
    const mine = currentLock();
    const inner = await this.inner(seat);
    return [mine.keys[0], inner, currentLockOrNone()];
  }

  @DistributedLock<[string]>({ key: (seat) => `inner:${seat}`, leaseMs: 1000 })
  inner(_seat: string): Promise<string> {
    return Promise.resolve(currentLock().keys[0]);
  }

  @DistributedLock<[{ id?: string }]>({ key: (o) => `thing:${String(o.id)}`, leaseMs: 1000 })
  byObject(_o: { id?: string }): Promise<string> {
    return Promise.resolve('ran');
  }

  // the classic mistake the key check exists for: an object stringified into the key
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  @DistributedLock<[object]>({ key: (o) => `thing:${String(o)}`, leaseMs: 1000 })
  byWholeObject(_o: object): Promise<string> {
    return Promise.resolve('ran');
  }
}

@Injectable()
class Sweeper {
  runs = 0;

  // @Interval below the lock: its metadata sits on the original method and must be copied
  @DistributedLock({ key: () => 'sweeper-a', leaseMs: 1000, onContention: 'skip' })
  @Interval('sweep-a', 20)
  async sweepBelow(): Promise<void> {
    this.runs++;
    await sleep(1);
  }

  // @Interval above the lock: it decorates the wrapper
  @Interval('sweep-b', 20)
  @DistributedLock({ key: () => 'sweeper-b', leaseMs: 1000, onContention: 'skip' })
  async sweepAbove(): Promise<void> {
    this.runs++;
    await sleep(1);
  }
}

async function app(...providers: (typeof SeatService | typeof Sweeper)[]) {
  @Module({
    imports: [DistributedLockModule.forRoot({ redis }), ScheduleModule.forRoot()],
    providers,
  })
  class TestModule {}
  const moduleRef = await Test.createTestingModule({ imports: [TestModule] }).compile();
  await moduleRef.init();
  return moduleRef;
}

it('fails at bootstrap, naming the service, when DistributedLockModule is missing', async () => {
  await expect(Test.createTestingModule({ providers: [SeatService] }).compile()).rejects.toThrow(
    /DistributedLockService/,
  );
});

it('locks the seats computed from the arguments; overlapping calls run one after the other', async () => {
  const m = await app(SeatService);
  const svc = m.get(SeatService);
  const ev = 'e1';
  const tokens = await Promise.all([svc.hold(ev, ['A1', 'A2'], 'x'), svc.hold(ev, ['A2', 'A3'], 'y')]);
  expect(svc.events).toEqual(expect.arrayContaining(['start x', 'end x', 'start y', 'end y']));
  const firstEnd = svc.events.indexOf(`end ${svc.events[0].split(' ')[1]}`);
  expect(firstEnd).toBe(1); // the second started only after the first ended
  expect(tokens[0]).not.toBe(tokens[1]);
  // disjoint seats do not wait for each other
  svc.events.length = 0;
  await Promise.all([svc.hold(ev, ['B1'], 'p'), svc.hold(ev, ['B2'], 'q')]);
  expect(svc.events.slice(0, 2).every((e) => e.startsWith('start'))).toBe(true);
  await m.close();
});

it('calls the key function with the instance as `this`', async () => {
  const m = await app(SeatService);
  expect(await m.get(SeatService).byInstance('A-1')).toEqual(['seat:{shard-7}:A-1']);
  await m.close();
});

it('gives currentLock() to the whole locked call, awaits included, and a clear error outside one', async () => {
  const m = await app(SeatService);
  const svc = m.get(SeatService);
  expect(currentLockOrNone()).toBe('LockScopeError');
  // concurrent calls each read their own lock after an await
  expect(await Promise.all([svc.readsLockLate('A-1'), svc.readsLockLate('A-2')])).toEqual([
    'late:A-1',
    'late:A-2',
  ]);
  // an awaited inner locked call sees its own lock; the outer one sees its own again after it
  const [a, b] = await Promise.all([svc.outer('A-1'), svc.outer('A-2')]);
  expect(a).toEqual(['outer:A-1', 'inner:A-1', 'outer:A-1']);
  expect(b).toEqual(['outer:A-2', 'inner:A-2', 'outer:A-2']);
  expect(currentLockOrNone()).toBe('LockScopeError');
  // concurrent holds on disjoint seats: each token is its own call's
  const tokens = await Promise.all([svc.hold('e2', ['C1'], 'c1'), svc.hold('e2', ['C2'], 'c2')]);
  expect(new Set(tokens).size).toBe(2);
  await m.close();
});

it('refuses keys with undefined or [object Object] parts instead of sharing one lock', async () => {
  const m = await app(SeatService);
  const svc = m.get(SeatService);
  await expect(svc.byObject({})).rejects.toBeInstanceOf(InvalidLockKeyError);
  await expect(svc.byWholeObject({ a: 1 })).rejects.toBeInstanceOf(InvalidLockKeyError);
  expect(await svc.byObject({ id: '7' })).toBe('ran');
  await m.close();
});

it('runs under @nestjs/schedule with @Interval below or above it, outside any HTTP context', async () => {
  const m = await app(Sweeper);
  const registry = m.get(SchedulerRegistry);
  expect(registry.getIntervals().sort()).toEqual(['sweep-a', 'sweep-b']);
  const sweeper = m.get(Sweeper);
  await eventually(() => sweeper.runs > 4, 5000);
  await m.close();
  expect(m.get(DistributedLockService).heldCount).toBe(0);
});

it('overriding the lock service in tests works through DI', async () => {
  const fake = { runExclusive: jest.fn((_k: unknown, _o: unknown, fn: () => Promise<unknown>) => fn()) };
  const m = await Test.createTestingModule({
    imports: [DistributedLockModule.forRoot({ redis })],
    providers: [SeatService],
  })
    .overrideProvider(DistributedLockService)
    .useValue(fake)
    .compile();
  await m.get(SeatService).byObject({ id: '1' });
  expect(fake.runExclusive).toHaveBeenCalledWith('thing:1', expect.anything(), expect.any(Function));
});
