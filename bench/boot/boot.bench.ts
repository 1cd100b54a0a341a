/**
 * Boot time: how long a seat-api takes from its start until it answers, with 1 event stored vs
 * BENCH_EVENTS (10,000). Two deployments side by side, each with its own private redis-server and
 * PostgreSQL schema; the many-event one gets its events by SQL (as years of use would leave them: start
 * dates ahead, so every one is still live). Each round kills both services with SIGKILL (a crash: leases
 * and Redis keys left behind) and starts them again, one after the other, timing:
 *   - live: spawn until /health/live answers 200 (the process listens)
 *   - ready: spawn until /health answers 200 (PostgreSQL and Redis checked)
 * Target: 10,000 events / 1 event at most 1.5 for both (no work over every stored event before listening).
 * Run: npm run bench:boot   (BENCH_EVENTS=10000, BENCH_ROUNDS=3)
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { freePort, startPrivateRedis } from '../../test/support/private-redis';
import { table, writeReport } from '../support/report';
import { BenchService, DATABASE_URL, startService } from '../support/service';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Adds `n` events (10 seats each, no seat rows: the boot never reads seats) straight into the schema. */
async function storeEvents(schema: string, n: number): Promise<void> {
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  try {
    await pg.query(
      `INSERT INTO "${schema}".events (id, name, starts_at, seat_count)
       SELECT gen_random_uuid(), 'Stored show ' || g, timestamptz '2030-01-01T20:00:00Z' + g * interval '1 hour', 10
       FROM generate_series(1, $1::int) AS g`,
      [n],
    );
  } finally {
    await pg.end();
  }
}

/** Polls `url` every 20 ms until it answers 200; the ms since `from`. */
async function answeredAfter(url: string, from: number): Promise<number> {
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) {
        return Date.now() - from;
      }
    } catch {
      /* not listening yet */
    }
    if (Date.now() - from > 300_000) {
      throw new Error(`${url} did not answer within 300 s`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  const redises = [await startPrivateRedis(), await startPrivateRedis()];
  const first: BenchService[] = [];
  let running: BenchService[] = [];
  const sections: string[] = [];
  try {
    const sides = [
      { name: '1 event', stored: 1 },
      { name: `${EVENTS.toLocaleString('en')} events`, stored: EVENTS },
    ];
    for (const [i, side] of sides.entries()) {
      const service = await startService(`boot_${i}`, redises[i].url);
      first.push(service);
      await service.createEvent(10);
      if (side.stored > 1) {
        await storeEvents(service.schema, side.stored - 1);
      }
    }
    const times = sides.map(() => ({ live: [] as number[], ready: [] as number[] }));
    running = [...first];
    const rows: string[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, side] of sides.entries()) {
        await running[i].child.stop('SIGKILL');
        // startService waits for /health/live itself (200 ms polls): the figures come from our own 20 ms polls
        const port = await freePort();
        const started = Date.now();
        const base = `http://127.0.0.1:${port}`;
        const service = startService(
          `boot_${i}`,
          redises[i].url,
          { PORT: String(port) },
          { schema: first[i].schema },
        );
        const live = await answeredAfter(`${base}/health/live`, started);
        const ready = await answeredAfter(`${base}/health`, started);
        running[i] = await service;
        times[i].live.push(live);
        times[i].ready.push(ready);
        rows.push([`round ${round}: ${side.name}`, String(live), String(ready)]);
        console.log(rows[rows.length - 1].join('  '));
      }
    }
    for (const [i, side] of sides.entries()) {
      rows.push([`median: ${side.name}`, String(median(times[i].live)), String(median(times[i].ready))]);
    }
    const ratio = (k: 'live' | 'ready') => median(times[1][k]) / median(times[0][k]);
    const verdict = (x: number) => `${x.toFixed(2)} (target <= 1.5: ${x <= 1.5 ? 'met' : 'NOT met'})`;
    const t = table(
      ['boot after kill -9', 'spawn -> /health/live 200 (ms)', 'spawn -> /health 200 (ms)'],
      rows,
    );
    const summary = [
      `live, ${sides[1].name} / 1 event: ${verdict(ratio('live'))}`,
      `ready, ${sides[1].name} / 1 event: ${verdict(ratio('ready'))}`,
    ];
    const load = `load average (1 / 5 / 15 min) at the start: ${loadAtStart.map((l) => l.toFixed(2)).join(' / ')}`;
    console.log(`\n${t}\n\n${summary.join('\n')}\n${load}`);
    sections.push(
      `## Boot time: 1 event vs ${sides[1].name} stored (${ROUNDS} rounds, medians)`,
      '',
      `- ${load}`,
      '- each deployment: apps/seat-api with default settings on its own redis-server and PostgreSQL schema; each round kills it with SIGKILL and starts it again',
      '',
      t,
      '',
      ...summary.map((l) => `- ${l}`),
      '',
    );
  } finally {
    await Promise.all(running.map((s) => s.child.stop()));
    for (const [i, s] of first.entries()) {
      await s.stop(); // drops the schema (the restarted processes shared it)
      await redises[i].stop();
    }
  }
  const file = writeReport('boot', 'Boot time: 1 event vs many stored', 'npm run bench:boot', sections);
  console.log(`\nreport: ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
