/**
 * Lock benchmark, side by side in one run on one private Redis; rounds are interleaved so machine noise
 * hits every contender alike. Run: npm run bench:lock
 *   1. acquire+release cycles per second at concurrency 1 and 50: our DistributedLockService (fixed lease,
 *      and watchdog mode), node-redlock 4.2.0 (npm `latest`, single client, no retries) and a bare
 *      SET NX PX + Lua compare-and-delete loop.
 *   2. a seat lock's section as a hold makes it (acquire, then one owner-checked write whose script lets
 *      go of the lock, on an auto-pipelining client as the service has), the usual way (the write waits
 *      for the grant) and pipelined (acquire and write in one batch): sections/s, round trips and CPU per
 *      section of this process and of Redis, with every worker on its own key, and with 50 workers
 *      fighting over 5 keys.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Redlock = require('redlock') as new (
  clients: Redis[],
  opts: object,
) => {
  lock(resource: string, ttl: number): Promise<{ unlock(): Promise<void> }>;
};
import { DistributedLockService } from '../../libs/distributed-lock/src/distributed-lock.service';
import { HeldLock } from '../../libs/distributed-lock/src';
import { LOCK_LUA_DIR, LOCK_SCRIPTS } from '../../libs/distributed-lock/src/lua/manifest';
import { LuaScript } from '../../libs/redis/src';
import { OWNED_SET, TEST_LUA_DIR } from '../../test/support/lua/manifest';
import { startPrivateRedis } from '../../test/support/private-redis';
import { redisCpuMs } from '../support/cpu-time';
import { table, writeReport } from '../support/report';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The bare lock's release: the owner-checked delete (the lock library's own release.lua). */
const RELEASE = new LuaScript(LOCK_LUA_DIR, LOCK_SCRIPTS.dlockRelease);

type Cycle = (key: string) => Promise<void>;

async function measure(cycle: Cycle, concurrency: number, keys = concurrency): Promise<number> {
  let done = 0;
  const end = performance.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      // each worker its own key (keys = concurrency): the lock's cost, not contention; fewer: a fight
      const key = `bench:${w % keys}`;
      while (performance.now() < end) {
        await cycle(key);
        done++;
      }
    }),
  );
  return done / (DURATION_MS / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Part 2: a seat lock's section, the usual way and pipelined (RunOptions.pipelined). */
async function sections(url: string, info: Redis): Promise<string> {
  const redis = new Redis(url, { enableAutoPipelining: true });
  // a store's owner-checked write that lets go of the lock (HeldLock.letGoInScript): its key count is
  // passed per call, as the lock's scripts' is
  const owned = new LuaScript(TEST_LUA_DIR, OWNED_SET);
  const ownedSet = (lock: HeldLock, key: string) =>
    lock.letGoInScript(
      owned.run(
        redis,
        { data: key, lockKeys: lock.ownership.keys },
        { owner: lock.ownership.owner, value: 'x', letGo: '1' },
      ) as Promise<string>,
      (answer) => answer === 'OK',
    );
  // run once before the first section (answers NOT_LOCKED), so Redis has it cached: a write whose EVALSHA
  // meets NOSCRIPT is sent again after the batch
  await owned.run(redis, { data: 'warm-up', lockKeys: ['warm-up'] }, { owner: '', value: '', letGo: '' });
  const locks = new DistributedLockService({ redis, keyPrefix: 'section:' });
  const section =
    (pipelined: boolean): Cycle =>
    async (key) => {
      const answer = await locks.runExclusive(key, { leaseMs: 5000, waitMs: 5000, pipelined }, (lock) =>
        ownedSet(lock, `data:${key}`),
      );
      if (answer !== 'OK') {
        throw new Error(`section answered ${String(answer)}`);
      }
    };
  const ways: Record<string, Cycle> = { 'the usual way': section(false), pipelined: section(true) };
  const cases = [
    { name: '1 worker', concurrency: 1, keys: 1 },
    { name: '50 workers, own keys', concurrency: 50, keys: 50 },
    { name: '50 workers, 5 keys', concurrency: 50, keys: 5 },
  ];
  const reads = async () => Number(/total_reads_processed:(\d+)/.exec(await info.info('stats'))![1]);
  type Sample = { rate: number; cpuUs: number; redisUs: number; trips: number };
  const samples: Record<string, Sample[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      for (const [way, cycle] of Object.entries(ways)) {
        const [cpu0, redis0, reads0] = [process.cpuUsage(), await redisCpuMs(info), await reads()];
        const rate = await measure(cycle, c.concurrency, c.keys);
        const cpu = process.cpuUsage(cpu0);
        const [redisMs, readsDone] = [(await redisCpuMs(info)) - redis0, (await reads()) - reads0 - 2];
        const n = (rate * DURATION_MS) / 1000;
        (samples[`${c.name}|${way}`] ??= []).push({
          rate,
          cpuUs: (cpu.user + cpu.system) / n,
          redisUs: (redisMs * 1000) / n,
          trips: readsDone / n,
        });
      }
    }
  }
  const rows = cases.flatMap((c) =>
    Object.keys(ways).map((way) => {
      const xs = samples[`${c.name}|${way}`];
      const usual = samples[`${c.name}|the usual way`];
      const m = (f: (s: Sample) => number, from = xs) => median(from.map(f));
      return [
        c.name,
        way,
        Math.round(m((s) => s.rate)),
        (m((s) => s.rate) / m((s) => s.rate, usual)).toFixed(2),
        m((s) => s.trips).toFixed(2),
        Math.round(m((s) => s.cpuUs)),
        Math.round(m((s) => s.redisUs)),
      ];
    }),
  );
  await locks.onApplicationShutdown();
  redis.disconnect();
  return table(
    [
      'case',
      'section',
      'sections/s',
      'vs usual',
      'round trips each',
      'this process µs each',
      'Redis µs each',
    ],
    rows,
  );
}

async function main(): Promise<void> {
  const server = await startPrivateRedis();
  const redis = new Redis(server.url);
  const ours = new DistributedLockService({ redis, keyPrefix: 'ours:' });
  const redlock = new Redlock([redis], { retryCount: 0 });
  const contenders: Record<string, Cycle> = {
    'bare SET NX PX + Lua release': async (key) => {
      const token = randomBytes(16).toString('base64url');
      await redis.set(`bare:${key}`, token, 'PX', 10_000, 'NX');
      await RELEASE.run(redis, { lockKeys: [`bare:${key}`] }, { owner: token });
    },
    'ours (fixed lease, fencing)': async (key) => {
      const l = await ours.acquire(key, { leaseMs: 10_000 });
      await l.release();
    },
    'ours (watchdog, fencing)': async (key) => {
      const l = await ours.acquire(key);
      await l.release();
    },
    'node-redlock 4.2.0': async (key) => {
      const l = await redlock.lock(`redlock:${key}`, 10_000);
      await l.unlock();
    },
  };
  const results: Record<string, Record<number, number[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const concurrency of [1, 50]) {
      for (const [name, cycle] of Object.entries(contenders)) {
        const rate = await measure(cycle, concurrency);
        ((results[name] ??= {})[concurrency] ??= []).push(rate);
      }
    }
  }
  const bare = results['bare SET NX PX + Lua release'];
  const redl = results['node-redlock 4.2.0'];
  const rows = Object.entries(results).map(([name, r]) => [
    name,
    Math.round(median(r[1])),
    (median(r[1]) / median(bare[1])).toFixed(2),
    (median(r[1]) / median(redl[1])).toFixed(2),
    Math.round(median(r[50])),
    (median(r[50]) / median(bare[50])).toFixed(2),
    (median(r[50]) / median(redl[50])).toFixed(2),
  ]);
  const out = table(
    ['contender', 'cycles/s @1', 'vs bare', 'vs redlock', 'cycles/s @50', 'vs bare', 'vs redlock'],
    rows,
  );
  console.log(
    `\nacquire+release cycles per second (median of ${ROUNDS} interleaved rounds of ${DURATION_MS} ms)\n${out}`,
  );
  const sectionTable = await sections(server.url, redis);
  console.log(`\nsections: acquire, one owner-checked write that lets go\n${sectionTable}`);
  const file = writeReport('lock', 'Lock benchmark', 'npm run bench:lock', [
    `Median of ${ROUNDS} interleaved rounds of ${DURATION_MS} ms each; one private redis-server; one Node process.`,
    '',
    '## 1. acquire + release cycles',
    '',
    out,
    '',
    '## 2. a seat lock’s section: acquire, one owner-checked write that lets go (auto-pipelining client)',
    '',
    'The write checks the lock’s ownership and deletes its keys in its own script, as a hold does',
    '(HeldLock.letGoInScript): no release is sent. The usual way: the write is sent once the grant is back',
    '(two round trips). Pipelined (RunOptions.pipelined): acquire and write in one batch. "5 keys": 50',
    'workers fighting over 5 locks. Round trips are the reads Redis made from client sockets per section;',
    'CPU is user + system per section.',
    '',
    sectionTable,
    '',
  ]);
  console.log(`report: ${file}`);
  await ours.onApplicationShutdown();
  redis.disconnect();
  await server.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
