/**
 * Lock benchmark: acquire+release cycles per second at concurrency 1 and 50, side by side in one run on
 * one private Redis: our DistributedLockService (fixed lease, and watchdog mode), node-redlock 4.2.0
 * (npm `latest`, single client, no retries) and a bare SET NX PX + Lua compare-and-delete loop.
 * Rounds are interleaved so machine noise hits every contender alike. Run: npm run bench:lock
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
import { startPrivateRedis } from '../../test/support/private-redis';
import { table, writeReport } from '../support/report';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

type Cycle = (key: string) => Promise<void>;

async function measure(cycle: Cycle, concurrency: number): Promise<number> {
  let done = 0;
  const end = performance.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      const key = `bench:${w}`; // each worker its own key: measures the lock's cost, not contention
      while (performance.now() < end) {
        await cycle(key);
        done++;
      }
    }),
  );
  return done / (DURATION_MS / 1000);
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
      await redis.eval(RELEASE, 1, `bare:${key}`, token);
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
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
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
  const file = writeReport('lock', 'Lock benchmark', 'npm run bench:lock', [
    `Median of ${ROUNDS} interleaved rounds of ${DURATION_MS} ms each; one private redis-server; one Node process.`,
    '',
    out,
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
