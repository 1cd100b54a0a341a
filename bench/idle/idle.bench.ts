/**
 * Idle cost, in two parts (BENCH_ONLY=events or apps runs one, and prints without writing the report).
 *
 * events: what seat-api costs with nothing held, 1 event vs BENCH_EVENTS (10,000) events.
 * Two instances of apps/seat-api run side by side, each on its own private redis-server (so each Redis's
 * INFO counts only its instance), sweeper and outbox relay on at their default periods; one has 1 event,
 * the other 10,000 (created over HTTP, as a user would, so each is registered in the hold store). Both
 * are measured over the same windows, so the machine's load weighs on both alike:
 *   - Redis commands/s: INFO stats total_commands_processed delta (minus the bench's own INFO calls)
 *   - seat-api CPU: user + system from /proc/<pid>/stat, as % of one core
 * Targets: at most 50 Redis commands/s and 1 % of a core per instance (64 shards), with 1 or 10,000
 * events; 10,000 events / 1 event at most 1.1 for both (background work is O(shards + due), not O(events)).
 * The expiry latency this idle floor must not cost is bench:expiry's.
 *
 * apps: every app idle, however it is started. Two deployments of the three apps from their build
 * (`npm run build` first), side by side: one started as `npm start` (and the Dockerfile) starts them,
 * `node --max-semi-space-size=64 dist/apps/<app>/src/main.js`, one with a plain `node dist/...`. Each
 * app works once (a hold that expires reaches the expiry consumer, a released one the waiting list),
 * then nothing happens; all six processes are measured over the same windows: CPU from /proc/<pid>/stat
 * and the main thread's wakeups (voluntary context switches, /proc/<pid>/status). Target: at most 1 % of a
 * core for every app, started either way. BENCH_APP_ROOT: measure another checkout's build (its dist/,
 * built beforehand), e.g. to compare with an older commit.
 *
 * Run: npm run bench:idle   (BENCH_EVENTS=10000, BENCH_WINDOWS=3 of BENCH_WINDOW_SECONDS=20 for events;
 *      BENCH_APP_WINDOWS=3 of BENCH_APP_WINDOW_SECONDS=40 for apps)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { startPrivateRedis } from '../../test/support/private-redis';
import { repoRoot, SERVER_NODE_ARGS } from '../support/child';
import { processCpuMs } from '../support/cpu-time';
import { table, writeReport } from '../support/report';
import { BenchService, startService } from '../support/service';
import { APPS, AppStack, startAppStack } from './app-stack';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 3);
const WINDOW_MS = Number(process.env.BENCH_WINDOW_SECONDS ?? 20) * 1000;
const APP_WINDOWS = Number(process.env.BENCH_APP_WINDOWS ?? 3);
const APP_WINDOW_MS = Number(process.env.BENCH_APP_WINDOW_SECONDS ?? 40) * 1000;
const APP_ROOT = process.env.BENCH_APP_ROOT ? path.resolve(process.env.BENCH_APP_ROOT) : repoRoot;
const ONLY = process.env.BENCH_ONLY;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const commandsProcessed = async (r: Redis) =>
  Number(/total_commands_processed:(\d+)/.exec(await r.info('stats'))![1]);

/** Calls per command name so far (INFO commandstats): what the idle commands are. */
async function callsPerCommand(r: Redis): Promise<Map<string, number>> {
  const info = await r.info('commandstats');
  return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1], Number(m[2])]));
}

/** Creates `n` one-row events of 10 seats, `parallel` requests at a time. */
async function createEvents(service: BenchService, n: number, parallel = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await service.createEvent(10);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Part events: seat-api with 1 event vs BENCH_EVENTS events. */
async function idleWithEvents(): Promise<string[]> {
  const loadAtStart = loadavg();
  const redisOne = await startPrivateRedis();
  const redisMany = await startPrivateRedis();
  const services: BenchService[] = [];
  const sections: string[] = [];
  try {
    const env = { SWEEPER_ENABLED: 'true' };
    const one = await startService('idle_one', redisOne.url, env);
    services.push(one);
    const many = await startService('idle_many', redisMany.url, env);
    services.push(many);
    const started = Date.now();
    await createEvents(one, 1);
    await createEvents(many, EVENTS);
    console.log(`created 1 + ${EVENTS} events in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    await sleep(5000); // whatever creating them set off (caches, first sweeps) settles

    const sides = [
      { name: '1 event', service: one, redis: redisOne.client },
      { name: `${EVENTS.toLocaleString('en')} events`, service: many, redis: redisMany.client },
    ];
    const totals = sides.map(() => ({ commands: 0, cpuMs: 0, ms: 0 }));
    const rows: (string | number)[][] = [];
    const callsBefore = await Promise.all(sides.map((s) => callsPerCommand(s.redis)));
    for (let w = 1; w <= WINDOWS; w++) {
      const before = await Promise.all(
        sides.map(async (s) => ({
          commands: await commandsProcessed(s.redis),
          cpuMs: processCpuMs(s.service.child.proc.pid!),
          at: Date.now(),
        })),
      );
      await sleep(WINDOW_MS);
      for (const [i, s] of sides.entries()) {
        // the INFO that read `before` is counted in the delta: one command of the bench's, not the service's
        const commands = (await commandsProcessed(s.redis)) - before[i].commands - 1;
        const cpuMs = processCpuMs(s.service.child.proc.pid!) - before[i].cpuMs;
        const ms = Date.now() - before[i].at;
        totals[i].commands += commands;
        totals[i].cpuMs += cpuMs;
        totals[i].ms += ms;
        rows.push([
          `window ${w}: ${s.name}`,
          ((commands * 1000) / ms).toFixed(1),
          `${((100 * cpuMs) / ms).toFixed(2)} %`,
        ]);
      }
      console.log(
        rows
          .slice(-2)
          .map((r) => r.join('  '))
          .join('\n'),
      );
    }
    const callsAfter = await Promise.all(sides.map((s) => callsPerCommand(s.redis)));
    const names = [...callsAfter[0].keys()].filter((c) => c !== 'info');
    const perSecond = (i: number, c: string) =>
      (((callsAfter[i].get(c) ?? 0) - (callsBefore[i].get(c) ?? 0)) * 1000) / totals[i].ms;
    const byCommand = table(
      ['command (INFO commandstats)', ...sides.map((s) => `calls/s, ${s.name}`)],
      names
        .map((c) => [c, ...sides.map((_, i) => perSecond(i, c).toFixed(1))])
        .filter((r) => Number(r[1]) > 0 || Number(r[2]) > 0)
        .sort((a, b) => Number(b[1]) - Number(a[1])),
    );
    const rate = (i: number) => (totals[i].commands * 1000) / totals[i].ms;
    const cpu = (i: number) => (100 * totals[i].cpuMs) / totals[i].ms;
    for (const [i, s] of sides.entries()) {
      rows.push([`all windows: ${s.name}`, rate(i).toFixed(1), `${cpu(i).toFixed(2)} %`]);
    }
    const verdict = (x: number) => `${x.toFixed(2)} (target <= 1.1: ${x <= 1.1 ? 'met' : 'NOT met'})`;
    const t = table(['idle, nothing held', 'Redis commands/s', 'seat-api CPU (% of one core)'], rows);
    const under = (x: number, max: number, unit: string) =>
      `${x.toFixed(2)}${unit} (target <= ${max}${unit}: ${x <= max ? 'met' : 'NOT met'})`;
    const summary = [
      ...sides.flatMap((s, i) => [
        `Redis commands/s, ${s.name}: ${under(rate(i), 50, '')}`,
        `seat-api CPU, ${s.name}: ${under(cpu(i), 1, ' %')}`,
      ]),
      `Redis commands/s, ${sides[1].name} / 1 event: ${verdict(rate(1) / rate(0))}`,
      `seat-api CPU, ${sides[1].name} / 1 event: ${verdict(cpu(1) / cpu(0))}`,
    ];
    const load = `load average (1 / 5 / 15 min) at the start: ${loadAtStart.map((l) => l.toFixed(2)).join(' / ')}`;
    console.log(`\n${t}\n\n${byCommand}\n\n${summary.join('\n')}\n${load}`);
    sections.push(
      `## Idle cost: 1 event vs ${sides[1].name}, nothing held (${WINDOWS} windows of ${WINDOW_MS / 1000} s, both instances measured over the same windows)`,
      '',
      `- ${load}`,
      '- each instance: apps/seat-api with SWEEPER_ENABLED=true (sweeper 1 s, outbox relay 200 ms, default HOLD_SHARDS) on its own redis-server',
      '',
      t,
      '',
      ...summary.map((l) => `- ${l}`),
      '',
      '### What the idle commands are',
      '',
      byCommand,
      '',
    );
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await redisOne.stop();
    await redisMany.stop();
  }
  return sections;
}

/** Wakeups of a process's main thread so far: its voluntary context switches (each ends a wait). */
const wakeups = (pid: number) =>
  Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** Part apps: the three apps idle, each started as npm start does and with a plain node. */
async function idleApps(): Promise<string[]> {
  if (APP_ROOT === repoRoot) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  }
  const loadAtStart = loadavg();
  const ways = [
    {
      name: 'npm start',
      command: `node ${SERVER_NODE_ARGS.join(' ')} dist/apps/<app>/src/main.js`,
      args: SERVER_NODE_ARGS,
    },
    { name: 'plain node', command: 'node dist/apps/<app>/src/main.js', args: [] },
  ];
  const redises = await Promise.all(ways.map(() => startPrivateRedis()));
  const stacks: AppStack[] = [];
  try {
    for (const [i, way] of ways.entries()) {
      stacks.push(await startAppStack(way.name.replace(' ', '_'), redises[i].url, way.args, APP_ROOT));
    }
    await Promise.all(stacks.map((s) => s.exercise()));
    await sleep(20_000); // what the work set off (the relay, commits, caches) settles
    const measured = stacks.flatMap((stack, i) =>
      APPS.map((app) => ({
        app,
        way: ways[i].name,
        pid: stack.processes[app].proc.pid!,
        cpu: [] as number[],
        wakeups: [] as number[],
      })),
    );
    for (let w = 1; w <= APP_WINDOWS; w++) {
      const before = measured.map((m) => ({
        cpuMs: processCpuMs(m.pid),
        wakeups: wakeups(m.pid),
        at: Date.now(),
      }));
      await sleep(APP_WINDOW_MS);
      for (const [i, m] of measured.entries()) {
        const ms = Date.now() - before[i].at;
        m.cpu.push((100 * (processCpuMs(m.pid) - before[i].cpuMs)) / ms);
        m.wakeups.push(((wakeups(m.pid) - before[i].wakeups) * 1000) / ms);
      }
      console.log(
        measured.map((m) => `window ${w}: ${m.app}, ${m.way}: ${m.cpu.at(-1)!.toFixed(2)} %`).join('\n'),
      );
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rows = measured.map((m) => [
      m.app,
      m.way,
      ...m.cpu.map((c) => `${c.toFixed(2)} %`),
      `**${mean(m.cpu).toFixed(2)} %** (${Math.min(...m.cpu).toFixed(2)}-${Math.max(...m.cpu).toFixed(2)})`,
      mean(m.wakeups).toFixed(0),
    ]);
    const t = table(
      [
        'app',
        'started as',
        ...m1(APP_WINDOWS).map((w) => `window ${w}`),
        'mean (min-max)',
        'main-thread wakeups/s',
      ],
      rows,
    );
    const summary = measured.map((m) => {
      const x = mean(m.cpu);
      return `${m.app}, ${m.way}: ${x.toFixed(2)} % of a core (target <= 1 %: ${x <= 1 ? 'met' : 'NOT met'})`;
    });
    const load = `load average (1 / 5 / 15 min) at the start: ${loadAtStart.map((l) => l.toFixed(2)).join(' / ')}`;
    console.log(`\n${t}\n\n${summary.join('\n')}\n${load}`);
    return [
      `## Every app idle, started as npm start does and with a plain node (${APP_WINDOWS} windows of ${APP_WINDOW_MS / 1000} s, all six processes measured over the same windows)`,
      '',
      `- ${load}`,
      `- build measured: ${APP_ROOT === repoRoot ? 'this checkout (npm run build)' : APP_ROOT}`,
      ...ways.map((w) => `- ${w.name}: \`${w.command}\``),
      '- the Dockerfile runs `node dist/apps/<app>/src/main.js` with the same flag in NODE_OPTIONS: the npm start rows',
      '- each deployment: the seat API (sweeper on, on its own redis-server), the expiry consumer and the waiting list; one hold expired and one released before the windows',
      '',
      t,
      '',
      ...summary.map((l) => `- ${l}`),
      '',
    ];
  } finally {
    await Promise.all(stacks.map((s) => s.stop()));
    await Promise.all(redises.map((r) => r.stop()));
  }
}

/** 1..n */
const m1 = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

async function main(): Promise<void> {
  const sections = [
    ...(ONLY === undefined || ONLY === 'events' ? await idleWithEvents() : []),
    ...(ONLY === undefined || ONLY === 'apps' ? await idleApps() : []),
  ];
  if (ONLY !== undefined) {
    return;
  }
  const file = writeReport('idle', 'Idle cost', 'npm run bench:idle', sections);
  console.log(`\nreport: ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
