/**
 * Hold store benchmark (Redis only, a private redis-server so INFO memory sees nothing else):
 *   1. Redis bytes per held seat, many holds (target <= 256 B), with the Redis
 *      server's CPU time per create (INFO cpu), since packing entries tighter trades one for the other;
 *      what each kind of key costs (bytes freed when it is deleted); and the same in small events (many
 *      events of 50 / 100 / 200 holds), where the per-event keys weigh more
 *   2. one sweep with nothing due: 10,000 vs LARGE active holds (must stay flat; item 3)
 *   3. sweeping 100,000 holds due in the same second: time until all seats are freed and recorded
 *   4. one sweeper tick over every shard with nothing due: 1 event vs EVENTS events each holding a seat
 *      (background work is O(shards + due), never O(events))
 * Run: npm run bench:store   (BENCH_LARGE=1000000 by default; lower it for a quick look)
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { startPrivateRedis } from '../../test/support/private-redis';
import { table, writeReport } from '../support/report';

const LARGE = Number(process.env.BENCH_LARGE ?? 1_000_000);
const SMALL = 10_000;
const DUE = Number(process.env.BENCH_DUE ?? 100_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const config = loadConfig({
  AUTH_JWT_SECRET: 'bench-secret-0123456789',
  HOLD_RETENTION_SECONDS: '86400',
  REDIS_URL: 'redis://unused', // the store gets its client from startPrivateRedis
});

async function fill(
  store: HoldStore,
  eventId: string,
  holds: number,
  seatsPerHold: number,
  ttlMs: (i: number) => number,
) {
  const chunk = 2000;
  for (let start = 0; start < holds; start += chunk) {
    const calls: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(holds, start + chunk); i++) {
      const seatIds = Array.from({ length: seatsPerHold }, (_, k) => `S${i * seatsPerHold + k}`);
      calls.push(
        store
          .createHold({
            eventId,
            holdId: HoldIds.generate(eventId),
            userId: `user-${i}`,
            seatIds,
            ttlMs: ttlMs(i),
            maxLifetimeMs: 7_200_000,
            maxSeatsPerUser: 100,
            fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
          })
          .then((r) => {
            if (!r.ok) {
              throw new Error(`fill failed: ${r.error}`);
            }
          }),
      );
    }
    await Promise.all(calls);
  }
}

async function usedMemory(redis: import('ioredis').default): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

/** CPU seconds the Redis server used so far (INFO cpu, user + sys): CPU time, so a busy machine does not inflate it. */
async function redisCpuSeconds(redis: import('ioredis').default): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** Key kinds of the layout (hold-keys.ts): an event's key without its id and bucket number. */
const kindOf = (key: string) =>
  key
    .replace(/:(holds|due):\d+$/, ':$1:<b>')
    .replace(/^hold:\{s\d+\}:[0-9a-f-]{36}:/, 'event ')
    .replace(/\{s\d+\}/, '{s<k>}');

/** Bytes freed per hold when each kind of key is deleted (DEL, so INFO sees it at once); deletes everything. */
async function bytesByKind(redis: import('ioredis').default, holds: number): Promise<(string | number)[][]> {
  const groups = new Map<string, string[]>();
  for (const key of await redis.keys('*')) {
    const kind = kindOf(key);
    groups.set(kind, [...(groups.get(kind) ?? []), key]);
  }
  const rows: (string | number)[][] = [];
  for (const [kind, keys] of [...groups].sort()) {
    const before = await usedMemory(redis);
    for (let i = 0; i < keys.length; i += 1000) {
      await redis.del(...keys.slice(i, i + 1000));
    }
    rows.push([kind, keys.length, ((before - (await usedMemory(redis))) / holds).toFixed(1)]);
  }
  return rows;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const store = new HoldStore(redis.client, config, new DistributedLockService({ redis: redis.client }));
  const sections: string[] = [];
  try {
    // 1. memory per held seat, for 1-seat and 4-seat holds
    const memRows: (string | number)[][] = [];
    let kinds: (string | number)[][] = [];
    for (const seatsPerHold of [1, 2, 4]) {
      const eventId = randomUUID();
      const holds = 50_000;
      const before = await usedMemory(redis.client);
      const cpu0 = await redisCpuSeconds(redis.client);
      await fill(store, eventId, holds, seatsPerHold, () => 3_600_000);
      const cpu = (await redisCpuSeconds(redis.client)) - cpu0;
      const after = await usedMemory(redis.client);
      const perSeat = (after - before) / (holds * seatsPerHold);
      memRows.push([
        seatsPerHold,
        holds,
        holds * seatsPerHold,
        Math.round(perSeat),
        Math.round((after - before) / holds),
        ((cpu * 1e6) / holds).toFixed(1),
      ]);
      if (seatsPerHold === 1) {
        kinds = await bytesByKind(redis.client, holds);
      }
      await redis.client.flushall();
    }
    const mem = table(
      [
        'seats per hold',
        'holds',
        'seats held',
        'bytes per held seat',
        'bytes per hold',
        'Redis CPU µs per create',
      ],
      memRows,
    );
    console.log(`\nRedis memory per held seat (INFO used_memory delta)\n${mem}`);
    const byKind = table(['key (1-seat holds)', 'keys', 'bytes freed per hold'], kinds);
    console.log(`\nWhat each kind of key costs, 50,000 one-seat holds\n${byKind}`);
    sections.push('## Redis memory per held seat', '', mem, '', byKind, '');

    // 1b. small events: the per-event keys (a due head, one bucket of each kind, meta, the change log) weigh more
    const smallRows: (string | number)[][] = [];
    for (const perEvent of [50, 100, 200]) {
      const events = 20_000 / perEvent;
      const before = await usedMemory(redis.client);
      for (let e = 0; e < events; e++) {
        await fill(store, randomUUID(), perEvent, 1, () => 3_600_000);
      }
      const perHold = ((await usedMemory(redis.client)) - before) / 20_000;
      smallRows.push([events, perEvent, Math.round(perHold)]);
      await redis.client.flushall();
    }
    const smallTable = table(['events', 'one-seat holds per event', 'bytes per held seat'], smallRows);
    console.log(`\nSmall events\n${smallTable}`);
    sections.push('## Redis memory per held seat in small events', '', smallTable, '');

    // 2. sweep with nothing due: SMALL vs LARGE active holds
    const small = randomUUID();
    const large = randomUUID();
    await fill(store, small, SMALL, 1, () => 3_600_000);
    console.log(`filling ${LARGE} holds...`);
    await fill(store, large, LARGE, 1, () => 3_600_000);
    const times: Record<string, number[]> = { small: [], large: [] };
    for (let i = 0; i < 400; i++) {
      for (const [name, eventId] of [
        ['small', small],
        ['large', large],
      ] as const) {
        const t0 = performance.now();
        const r = await store.sweepShard(store.layout.shardOf(eventId), 500);
        times[name].push(performance.now() - t0);
        if (r.expiredSeats !== 0) {
          throw new Error('nothing should be due');
        }
      }
    }
    const rows = (['small', 'large'] as const).map((name) => {
      const s = times[name].sort((a, b) => a - b);
      return [name === 'small' ? SMALL : LARGE, percentile(s, 50).toFixed(3), percentile(s, 99).toFixed(3)];
    });
    const ratio = (Number(rows[1][1]) / Number(rows[0][1])).toFixed(2);
    const flat = table(['active holds', 'sweep p50 ms', 'sweep p99 ms'], rows);
    console.log(
      `\nOne sweep with nothing due (400 interleaved runs each)\n${flat}\nratio p50 large/small: ${ratio}`,
    );
    sections.push(
      '## One sweep with nothing due',
      '',
      flat,
      '',
      `Ratio of p50 (large / small): ${ratio}`,
      '',
    );
    await redis.client.flushall();

    // 3. DUE holds expiring in the same second
    const eventId = randomUUID();
    const dueAt = Date.now() + 20_000 + DUE / 10; // leave time to create them all first
    await fill(store, eventId, DUE, 1, () => dueAt - Date.now());
    while (Date.now() < dueAt + 1000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const t0 = performance.now();
    let freed = 0;
    let sweeps = 0;
    for (;;) {
      const r = await store.sweepShard(store.layout.shardOf(eventId), 500);
      freed += r.expiredSeats;
      sweeps++;
      if (!r.more) {
        break;
      }
    }
    const elapsed = performance.now() - t0;
    const outbox = await redis.client.xlen(store.eventOutboxKey(eventId));
    const due = table(
      ['holds due', 'seats freed', 'outbox records', 'sweep calls', 'seconds', 'seats/s'],
      [[DUE, freed, outbox, sweeps, (elapsed / 1000).toFixed(2), Math.round(freed / (elapsed / 1000))]],
    );
    console.log(`\nSweeping ${DUE} holds due in the same second (one sweeper, batch 500)\n${due}`);
    sections.push(`## Sweeping ${DUE} holds due in the same second`, '', due, '');
    await redis.client.flushall();

    // 4. a whole sweeper tick (every shard, as one instance owning all of them) with nothing due
    const tick = async () => {
      const t = performance.now();
      for (const shard of store.layout.all()) {
        await store.sweepShard(shard, 500);
      }
      return performance.now() - t;
    };
    const holdOne = (eventId: string) =>
      store.createHold({
        eventId,
        holdId: HoldIds.generate(eventId),
        userId: 'u',
        seatIds: ['S1'],
        ttlMs: 3_600_000,
        maxLifetimeMs: 7_200_000,
        maxSeatsPerUser: 10,
        fencingToken: 0,
      });
    const tickRows: (string | number)[][] = [];
    const medians: number[] = [];
    for (const events of [1, EVENTS]) {
      for (let i = 0; i < events; i += 1000) {
        await Promise.all(
          Array.from({ length: Math.min(1000, events - i) }, () => {
            const eventId = randomUUID();
            return store.registerEvent(eventId, new Date()).then(() => holdOne(eventId));
          }),
        );
      }
      const runs: number[] = [];
      for (let r = 0; r < 50; r++) {
        runs.push(await tick());
      }
      runs.sort((a, b) => a - b);
      medians.push(percentile(runs, 50));
      tickRows.push([events, percentile(runs, 50).toFixed(2), percentile(runs, 99).toFixed(2)]);
      await redis.client.flushall();
    }
    const ticks = table(['events, each holding a seat', 'tick p50 ms', 'tick p99 ms'], tickRows);
    const tickRatio = (medians[1] / medians[0]).toFixed(2);
    console.log(
      `\nOne sweeper tick over ${store.layout.shards} shards, nothing due (50 runs each)\n${ticks}\nratio p50: ${tickRatio}`,
    );
    sections.push('## One sweeper tick with nothing due', '', ticks, '', `Ratio of p50: ${tickRatio}`, '');
  } finally {
    await redis.stop();
  }
  const file = writeReport('store', 'Hold store benchmark', 'npm run bench:store', sections);
  console.log(`\nreport: ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
