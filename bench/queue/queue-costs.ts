/**
 * bench:queue's cost parts: Redis bytes per entry of one event's queue of 1,000,000 (the hold store's own
 * scripts on a private redis-server), and, on one seat API instance, joins/s, holds/s with and without the
 * gate, and the public status served from memory, in interleaved rounds.
 */
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { QueueStore } from '../../apps/seat-api/src/hold-store/queue.store';
import { startPrivateRedis } from '../../test/support/private-redis';
import { monitorRedis } from '../../test/support/redis-monitor';
import { processCpuMs, redisCpuMs } from '../support/cpu-time';
import { load, LoadRequest, LoadResult } from '../support/load';
import { profiledRun } from '../support/profile-run';
import { table } from '../support/report';
import { BenchService } from '../support/service';
import { eventsForRate, FreshSeats, median, newEvents, SEATS_PER_EVENT, Target } from '../http/hold-load';
import { adminCall, setUpQueue, sleep, tokenOf } from './queue-client';

const num = (v: number, digits = 0) =>
  v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export interface MemoryFigures {
  entries: number;
  bytesPerEntry: number;
  redisCpuUsPerJoin: number;
  redisCpuUsPerRead: number;
  commandsPerJoin: number;
  section: string;
}

/** INFO commandstats: calls of every command so far. */
export async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    out.set(m[1], Number(m[2]));
  }
  return out;
}

export function callsSince(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0 && k !== 'info') {
      out.set(k, d);
    }
  }
  return out;
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/**
 * One event's queue of `entries` joined before the start (the shuffle's path, the costlier one: a join may
 * move an earlier entry to the back), on its own redis-server: used_memory before and after, MEMORY USAGE of
 * each of the queue's keys, Redis CPU per join and per entry read (a waiting client's poll).
 */
export async function memorySection(entries: number): Promise<MemoryFigures> {
  const redis = await startPrivateRedis();
  const config = loadConfig({
    AUTH_JWT_SECRET: 'bench-secret-0123456789',
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: 'svc:',
  });
  const client = new Redis(redis.url, { keyPrefix: 'svc:' });
  try {
    const store = new HoldStore(
      client,
      config,
      new DistributedLockService({ redis: client, keyPrefix: 'lock:' }),
    );
    const queue = new QueueStore(store, client, config);
    const eventId = '0f6a1c2e-4b8d-4e7a-9c3b-5d2e8f1a7b64';
    const now = Number((await client.time())[0]) * 1000;
    const r = await queue.configure(
      eventId,
      {
        opensAtMs: now,
        salesStartAtMs: now + 86_400_000,
        order: 'shuffle-then-fifo',
        admitPerMinute: 600,
        maxActiveShoppers: 200,
        passTtlMs: 600_000,
        idleEntryTtlMs: 120_000,
      },
      { id: 'bench-action-1', actor: 'bench-admin', action: 'QUEUE_CONFIGURE', target: 'queue' },
    );
    if (!r.ok) {
      throw new Error(`queue set-up: ${r.error}`);
    }
    // one join first: the scripts are loaded and the queue's keys exist before the baseline
    await queue.join(eventId, 'warm-up-user');
    await sleep(200);
    const usedBefore = await usedMemory(redis.client);
    const cpuBefore = await redisCpuMs(redis.client);
    const callsBefore = await commandCalls(redis.client);
    const chunk = 2000;
    const started = performance.now();
    for (let start = 0; start < entries; start += chunk) {
      const joins: Promise<unknown>[] = [];
      for (let i = start; i < Math.min(entries, start + chunk); i++) {
        joins.push(queue.join(eventId, `user-${i}`));
      }
      await Promise.all(joins);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuJoins = (await redisCpuMs(redis.client)) - cpuBefore;
    const calls = callsSince(callsBefore, await commandCalls(redis.client));
    const usedAfter = await usedMemory(redis.client);
    const keys = (await redis.client.keys('svc:*:q*')).sort();
    const keyRows: (string | number)[][] = [];
    for (const key of keys) {
      const type = await redis.client.type(key);
      const bytes = Number(await redis.client.memory('USAGE', key, 'SAMPLES', '0'));
      const size =
        type === 'hash'
          ? await redis.client.hlen(key)
          : type === 'zset'
            ? await redis.client.zcard(key)
            : type === 'stream'
              ? await redis.client.xlen(key)
              : await redis.client.scard(key);
      keyRows.push([
        `\`${key.replace(eventId, '<event>')}\``,
        type,
        num(size),
        num(bytes),
        num(bytes / entries, 1),
      ]);
    }
    // a waiting client's poll: read (and be seen in) an entry, 100,000 times over the queue
    const reads = Math.min(100_000, entries);
    const cpuReadsBefore = await redisCpuMs(redis.client);
    for (let start = 0; start < reads; start += chunk) {
      const calls: Promise<unknown>[] = [];
      for (let i = start; i < Math.min(reads, start + chunk); i++) {
        calls.push(queue.entry(queue.entryIdOf(eventId, `user-${i}`), `user-${i}`));
      }
      await Promise.all(calls);
    }
    const cpuReads = (await redisCpuMs(redis.client)) - cpuReadsBefore;
    const bytesPerEntry = (usedAfter - usedBefore) / entries;
    const commandsPerJoin = sum(calls) / entries;
    const callsText = [...calls]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / entries).toFixed(2)}`)
      .join(', ');
    const section =
      `## One event's queue of ${num(entries)} entries (Redis only, a private redis-server)\n\n` +
      `Joined before the sales start with order shuffle-then-fifo (each join takes a random place among those ` +
      `before it, moving that place's entry to the back), ${chunk} joins in flight at a time, ` +
      `${num(entries / seconds)} joins/s.\n\n` +
      table(
        ['figure', 'value', 'target'],
        [
          [
            'Redis bytes per entry (used_memory after - before, / entries)',
            `${num(bytesPerEntry, 1)} B (${num((usedAfter - usedBefore) / 2 ** 20, 1)} MiB in all)`,
            `≤ 256 B: ${bytesPerEntry <= 256 ? 'met' : 'not met'}`,
          ],
          ['Redis CPU per join', `${((cpuJoins * 1000) / entries).toFixed(1)} µs`, ''],
          [
            "commands Redis ran per join (INFO commandstats, the script's own included)",
            `${commandsPerJoin.toFixed(2)}: ${callsText}`,
            '',
          ],
          [
            "Redis CPU per entry read (a waiting client's poll, 100,000 reads)",
            `${((cpuReads * 1000) / reads).toFixed(1)} µs`,
            '',
          ],
        ],
      ) +
      `\n\nThe queue's keys (MEMORY USAGE, exact):\n\n` +
      table(['key', 'type', 'elements', 'bytes', 'bytes per entry'], keyRows);
    return {
      entries,
      bytesPerEntry,
      redisCpuUsPerJoin: (cpuJoins * 1000) / entries,
      redisCpuUsPerRead: (cpuReads * 1000) / reads,
      commandsPerJoin,
      section,
    };
  } finally {
    client.disconnect();
    await redis.stop();
  }
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))![1]);
}

// ---------------------------------------------------------------------------------------------------

/** Users holding on a gated event: each has a pass for it (the per-user seat limit is raised for the bench). */
const GATED_USERS = 200;

interface Side {
  name: string;
  /** what counts as done (201 for holds and first joins; 200 / 304 for status reads) */
  okStatus: number;
  prepare(): Promise<() => LoadRequest>;
  after?(): Promise<void>;
  rates: number[];
  cpuMs: number;
  done: number;
  p99: number[];
}

export interface ThroughputFigures {
  section: string;
  joinsPerHold: number[];
  gateOnPerOff: number[];
  status200PerHold: number[];
  status304PerHold: number[];
  serviceCpuUs: Record<string, number>;
  sentPerJoin: number;
  holdsPerSecond: number;
}

export async function throughputSection(
  service: BenchService,
  redisUrl: string,
  rounds: number,
  seconds: number,
): Promise<ThroughputFigures> {
  const users = Array.from({ length: GATED_USERS }, (_, u) => tokenOf(`user-${u}`));
  const auth = (u: number) => ({ authorization: `Bearer ${users[u % GATED_USERS]}` });
  const plain: Target = {
    name: 'gate off',
    base: service.base,
    auth,
    newEvent: (s) => service.createEvent(s),
  };
  /** gated events' passes: eventId -> the pass of user u */
  const passes = new Map<string, { pass: string }[]>();
  const gated: Target = {
    name: 'gate on',
    base: service.base,
    auth,
    newEvent: async (seats) => {
      const eventId = await service.createEvent(seats);
      await setUpQueue(service, eventId, {
        opensInMs: 1000,
        prequeueMs: 0,
        order: 'fifo',
        admitPerMinute: 100_000,
        maxActiveShoppers: 1_000_000,
      });
      await Promise.all(
        users.map((t) =>
          fetch(`${service.base}/v1/events/${eventId}/queue/entries`, {
            method: 'POST',
            headers: { authorization: `Bearer ${t}` },
          }).then((r) => r.arrayBuffer()),
        ),
      );
      const got: { pass: string }[] = [];
      for (let u = 0; u < GATED_USERS; u++) {
        const entryId = await entryIdOf(service.base, eventId, users[u]);
        for (let tries = 0; ; tries++) {
          const res = await fetch(`${service.base}/v1/queue/entries/${entryId}`, { headers: auth(u) });
          const e = (await res.json()) as { pass?: string };
          if (e.pass) {
            got.push({ pass: e.pass });
            break;
          }
          if (tries > 100) {
            throw new Error(`user-${u} was not admitted on ${eventId}`);
          }
          await sleep(100);
        }
      }
      passes.set(eventId, got);
      return eventId;
    },
  };
  const holdSide = (target: Target, eventsPerRun: () => number, gate: boolean, name: string): Side => {
    let events: string[] = [];
    return {
      name,
      okStatus: 201,
      rates: [],
      cpuMs: 0,
      done: 0,
      p99: [],
      prepare: async () => {
        events = await Promise.all(
          Array.from({ length: eventsPerRun() }, () => newEvents(target, 1).then((e) => e[0])),
        );
        const seats = new FreshSeats(events);
        let n = 0;
        return () => {
          const { eventId, seatIds } = seats.next();
          const u = n++ % GATED_USERS;
          return {
            method: 'POST',
            path: `/v1/events/${eventId}/holds`,
            headers: {
              'content-type': 'application/json',
              ...auth(u),
              ...(gate ? { 'queue-pass': passes.get(eventId)![u].pass } : {}),
            },
            body: JSON.stringify({ seatIds }),
          };
        };
      },
      // a sale's queue is switched off after it: the instance steps only the queues that run
      after: gate
        ? async () => {
            for (const e of events) {
              await adminCall(service.base, 'DELETE', `/v1/events/${e}/queue`);
              passes.delete(e);
            }
          }
        : undefined,
    };
  };
  // the joins' event: its queue open, its sales start far off (every join takes the shuffle's path)
  const joinEvent = await service.createEvent(100);
  await setUpQueue(service, joinEvent, {
    opensInMs: 1000,
    prequeueMs: 7_200_000,
    admitPerMinute: 600,
    maxActiveShoppers: 200,
  });
  let joiner = 0;
  const joins: Side = {
    name: 'joins (a new user each)',
    okStatus: 201,
    rates: [],
    cpuMs: 0,
    done: 0,
    p99: [],
    prepare: () =>
      Promise.resolve(() => ({
        method: 'POST',
        path: `/v1/events/${joinEvent}/queue/entries`,
        headers: { authorization: `Bearer ${tokenOf(`joiner-${joiner++}`)}` },
      })),
  };
  const reads: Side = {
    name: "entry reads (a waiting client's poll)",
    okStatus: 200,
    rates: [],
    cpuMs: 0,
    done: 0,
    p99: [],
    prepare: () => {
      const joined = joiner;
      let k = 0;
      return Promise.resolve(() => {
        const user = `joiner-${k++ % joined}`;
        return {
          method: 'GET',
          path: `/v1/queue/entries/${entryIdFor(joinEvent, user)}`,
          headers: { authorization: `Bearer ${tokenOf(user)}` },
        };
      });
    },
  };
  const statusPath = `/v1/events/${joinEvent}/queue`;
  const status200: Side = {
    name: 'queue status, 200 (a client whose copy is stale)',
    okStatus: 200,
    rates: [],
    cpuMs: 0,
    done: 0,
    p99: [],
    prepare: () => Promise.resolve(() => ({ method: 'GET', path: statusPath, headers: {} })),
  };
  const status304: Side = {
    name: 'queue status, If-None-Match → 304',
    okStatus: 304,
    rates: [],
    cpuMs: 0,
    done: 0,
    p99: [],
    prepare: async () => {
      const etag = (await fetch(`${service.base}${statusPath}`)).headers.get('etag')!;
      return () => ({ method: 'GET', path: statusPath, headers: { 'if-none-match': etag } });
    },
  };
  // warm-up (not reported): JIT, pools, caches; the hold rate sizes the runs' events
  let holdEvents = 3;
  const off = holdSide(plain, () => holdEvents, false, 'holds, gate off (no queue)');
  const on = holdSide(gated, () => holdEvents, true, 'holds, gate on (each with its pass)');
  const sides = [off, on, joins, reads, status200, status304];
  for (const side of sides) {
    const r = await run(service, side, await side.prepare(), Math.min(seconds, 3));
    await side.after?.();
    if (side === off) {
      holdEvents = Math.min(6, eventsForRate(r.requests / r.seconds, seconds));
    }
  }
  const pid = service.child.proc.pid!;
  const rows: (string | number)[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = sides.map((_, i) => sides[(i + round - 1) % sides.length]);
    for (const side of order) {
      const next = await side.prepare();
      const cpu = processCpuMs(pid);
      const r = await profiledRun(service.child, `queue-${sides.indexOf(side)}-${round}`, () =>
        run(service, side, next, seconds),
      );
      side.cpuMs += processCpuMs(pid) - cpu;
      await side.after?.();
      const ok = r.statuses[side.okStatus] ?? 0;
      side.done += ok;
      side.rates.push(Math.round(ok / r.seconds));
      side.p99.push(r.latencyMs.p99);
      const other = Object.entries(r.statuses).filter(([s]) => Number(s) !== side.okStatus);
      rows.push([
        `${side.name} #${round}`,
        num(side.rates.at(-1)!),
        r.latencyMs.p50,
        r.latencyMs.p99,
        other.map(([s, n]) => `${s}×${n}`).join(' ') + (r.errors ? ` errors×${r.errors}` : ''),
      ]);
      console.log(rows.at(-1)!.join('  '));
    }
  }
  const ratio = (a: Side, b: Side) => a.rates.map((x, i) => x / b.rates[i]);
  const joinsPerHold = ratio(joins, off);
  const gateOnPerOff = ratio(on, off);
  const status200PerHold = ratio(status200, off);
  const status304PerHold = ratio(status304, off);
  const us = (s: Side) => (s.cpuMs * 1000) / Math.max(1, s.done);
  const sent = await sentPerOperation(service, redisUrl, joinEvent, gated, plain, auth, passes);
  const spread = (xs: number[]) =>
    `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
  const verdict = (xs: number[], target: number) =>
    `≥ ${target}: ${median(xs) >= target ? 'met' : 'not met'}`;
  const summary = table(
    [
      'side',
      'per second (median of rounds)',
      'p99 ms (median)',
      'service CPU per answer',
      'commands the service sent to Redis per answer (MONITOR)',
    ],
    sides.map((s) => [
      s.name,
      num(median(s.rates)),
      median(s.p99),
      `${us(s).toFixed(0)} µs`,
      sent[s.name] ?? '',
    ]),
  );
  const ratios = table(
    ['ratio (each round its own, side by side)', 'median (lowest-highest of rounds)', 'target'],
    [
      ['joins/s ÷ holds/s (gate off)', spread(joinsPerHold), verdict(joinsPerHold, 2)],
      ['holds/s gate on ÷ gate off', spread(gateOnPerOff), verdict(gateOnPerOff, 0.9)],
      ['status 200/s ÷ holds/s (gate off)', spread(status200PerHold), verdict(status200PerHold, 10)],
      ['status 304/s ÷ holds/s (gate off)', spread(status304PerHold), verdict(status304PerHold, 10)],
      ['service CPU per hold ÷ per join', (us(off) / us(joins)).toFixed(2), ''],
      ['service CPU per hold ÷ per status 200', (us(off) / us(status200)).toFixed(2), ''],
    ],
  );
  return {
    section:
      `## Joins, holds with and without the gate, and the public status: one instance, 32 connections, ` +
      `${seconds} s per run, ${rounds} interleaved rounds\n\n` +
      `Holds: the load of bench:http (1-4 free seats of ${num(SEATS_PER_EVENT)}-seat events, ${GATED_USERS} users); ` +
      `with the gate each event has an open queue that admitted all ${GATED_USERS} users and every hold carries its ` +
      `user's pass. Joins: a new user each into one event's queue before its sales start (the shuffle's path). ` +
      `Status: \`GET /v1/events/{id}/queue\` of that event, answered from the instance's memory.\n\n` +
      table(['run', 'per second', 'p50 ms', 'p99 ms', 'other answers'], rows) +
      `\n\n${summary}\n\n${ratios}`,
    joinsPerHold,
    gateOnPerOff,
    status200PerHold,
    status304PerHold,
    serviceCpuUs: Object.fromEntries(sides.map((s) => [s.name, us(s)])),
    sentPerJoin: Number.parseFloat(sent[joins.name] ?? 'NaN'),
    holdsPerSecond: median(off.rates),
  };
}

async function entryIdOf(base: string, eventId: string, token: string): Promise<string> {
  const res = await fetch(`${base}/v1/events/${eventId}/queue/entries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { entryId: string }).entryId;
}

/** The id the service gives `user`'s entry in the event's queue (QueueStore.entryIdOf). */
function entryIdFor(eventId: string, user: string): string {
  const digest = createHash('sha256').update(`${eventId.toLowerCase()}\n${user}`).digest('base64url');
  return eventId.replace(/-/g, '') + digest.slice(0, 12);
}

function run(
  service: BenchService,
  side: Side,
  next: () => LoadRequest,
  seconds: number,
): Promise<LoadResult> {
  return load({ url: service.base, connections: 32, durationSeconds: seconds, next });
}

/** Commands the service sent to Redis per answer, MONITOR over 300 requests one at a time (scripts' own not counted). */
async function sentPerOperation(
  service: BenchService,
  redisUrl: string,
  joinEvent: string,
  gated: Target,
  plain: Target,
  auth: (u: number) => Record<string, string>,
  passes: Map<string, { pass: string }[]>,
): Promise<Record<string, string>> {
  const [offEvent] = await newEvents(plain, 1);
  const [onEvent] = await newEvents(gated, 1);
  const n = 300;
  const out: Record<string, string> = {};
  const measure = async (name: string, one: (i: number) => Promise<Response>) => {
    const counts = new Map<string, number>();
    let on = false;
    const monitor = await monitorRedis(redisUrl, (args, source) => {
      const cmd = (args[0] ?? '').toLowerCase();
      if (cmd === 'echo') {
        on = args[1] === `start:${name}`;
      } else if (on && source !== 'lua') {
        counts.set(cmd, (counts.get(cmd) ?? 0) + 1);
      }
    });
    const ctl = new Redis(redisUrl);
    await ctl.echo(`start:${name}`);
    for (let i = 0; i < n; i++) {
      await (await one(i)).arrayBuffer();
    }
    await ctl.echo('stop');
    await sleep(300);
    monitor.stop();
    ctl.disconnect();
    const total = sum(counts);
    out[name] =
      `${(total / n).toFixed(2)}` +
      (total > 0
        ? `: ${[...counts]
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k.toUpperCase()} ${(v / n).toFixed(2)}`)
            .join(', ')}`
        : '');
  };
  const seats = (i: number) => ({ seatIds: [`S-R${Math.floor(i / 100) + 1}-${(i % 100) + 1}`] });
  await measure('holds, gate off (no queue)', (i) =>
    fetch(`${service.base}/v1/events/${offEvent}/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(i) },
      body: JSON.stringify(seats(i)),
    }),
  );
  await measure('holds, gate on (each with its pass)', (i) =>
    fetch(`${service.base}/v1/events/${onEvent}/holds`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...auth(i),
        'queue-pass': passes.get(onEvent)![i % GATED_USERS].pass,
      },
      body: JSON.stringify(seats(i)),
    }),
  );
  await measure('joins (a new user each)', (i) =>
    fetch(`${service.base}/v1/events/${joinEvent}/queue/entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf(`monitored-joiner-${i}`)}` },
    }),
  );
  await measure("entry reads (a waiting client's poll)", (i) =>
    fetch(`${service.base}/v1/queue/entries/${entryIdFor(joinEvent, `monitored-joiner-${i}`)}`, {
      headers: { authorization: `Bearer ${tokenOf(`monitored-joiner-${i}`)}` },
    }),
  );
  await measure('queue status, 200 (a client whose copy is stale)', () =>
    fetch(`${service.base}/v1/events/${joinEvent}/queue`),
  );
  await adminCall(service.base, 'DELETE', `/v1/events/${onEvent}/queue`);
  return out;
}
