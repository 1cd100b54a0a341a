/**
 * General-admission areas against named seats, side by side in one run:
 *   1. Redis memory (area-memory.ts, the hold store on a private redis-server): an area of 100,000 places
 *      vs one of 100, and the bytes a hold of places adds vs a hold of as many named seats;
 *   2. over HTTP, one seat API instance as `npm start` runs it, on its own private Redis:
 *      a. the Redis commands per hold (MONITOR, holds one at a time): places alone, seats alone, a mixed
 *         hold (2 seats + 2 places) and a 4-seat hold;
 *      b. a mixed hold (2 seats + 2 places) against a 4-seat hold, free seats of events that have both,
 *         32 connections, interleaved rounds: p99;
 *      c. the flash sale: 500 connections on a new 5,000-place area asking 1-4 places each, against the
 *         same flash sale on a new event of 5,000 named seats asking 1-4 random seats, interleaved rounds;
 *         after each sale every live hold is confirmed (flashSale). Every entry of the area's change log (the stream the
 *         seat map's SSE follows, one entry per change) is read as it is written: held + booked never
 *         above the capacity; at the end every place is booked (0 free).
 * Targets (issue: general-admission areas): places held + booked <= capacity at every change, 0 free at
 * sell-out, 0 % 503, flash-sale answers/s >= 1.0x named seats; Redis commands per hold of places <= named
 * seats; mixed p99 <= 1.2x the 4-seat hold; an area's memory flat in its capacity.
 *
 * Run: npm run bench:areas   (BENCH_ROUNDS 5, BENCH_SECONDS 5 per flash sale, BENCH_MIXED_SECONDS 4,
 *      BENCH_MEMORY_HOLDS 10000; private Redis ports BENCH_MEMORY_REDIS_PORT 7901, BENCH_REDIS_PORT 7902)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { HoldLayout } from '../../apps/seat-api/src/hold-store';
import { startPrivateRedis } from '../../test/support/private-redis';
import { median } from '../http/hold-load';
import { processCpuMs, redisCpuMs } from '../support/cpu-time';
import { load, LoadResult, share } from '../support/load';
import { table, writeReport } from '../support/report';
import { BenchService, seatId, signBenchToken, startService } from '../support/service';
import { areaMemory } from './area-memory';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const MIXED_SECONDS = Number(process.env.BENCH_MIXED_SECONDS ?? 4);
const REDIS_PORT = Number(process.env.BENCH_REDIS_PORT ?? 7902);
const SALE_CAPACITY = 5000;
const SALE_CONNECTIONS = 500;
/** Confirms running beside the flash sale, as many checkouts at once. */
const CONFIRMERS = 16;
const USERS = 20_000;
/** Users 19,000-19,999 buy what a flash sale's window left (flashSale); the loads use those below. */
const TOP_UP_USERS = 19_000;
/** The mixed events: 10,000 seats (100 rows of 100) and an area of 90,000 places. */
const MIXED_SEATS = 10_000;
const MIXED_PLACES = 90_000;
const KEY_PREFIX = 'svc:';

const config = loadConfig({ AUTH_JWT_SECRET: 'bench-secret-0123456789', REDIS_URL: 'redis://unused' });
const layout = new HoldLayout(config.holds.shards);

interface Ctx {
  service: BenchService;
  redisUrl: string;
  jwt: string[];
  admin: string;
}

const auth = (ctx: Ctx, user: number) => ({ authorization: `Bearer ${ctx.jwt[user % USERS]}` });

async function createLayout(ctx: Ctx, sections: unknown[]): Promise<string> {
  const res = await fetch(`${ctx.service.base}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.admin}` },
    body: JSON.stringify({
      name: 'Bench show',
      settings: { orphanRule: 'none' }, // holds take seats in order or at random
      startsAt: '2030-01-01T20:00:00Z',
      sections,
    }),
  });
  if (res.status !== 201) {
    throw new Error(`create event: ${res.status} ${await res.text()}`);
  }
  const eventId = ((await res.json()) as { eventId: string }).eventId;
  // warm, as an event on sale is: the catalogue cached, the areas set up in Redis, the seat map built
  for (const path of [`/v1/events/${eventId}`, `/v1/events/${eventId}/seats`]) {
    await (await fetch(`${ctx.service.base}${path}`, { headers: auth(ctx, 0) })).arrayBuffer();
  }
  return eventId;
}

const floorOnly = (ctx: Ctx, capacity: number) =>
  createLayout(ctx, [{ name: 'FLOOR', category: 'standing', capacity }]);

const seatsAndFloor = (ctx: Ctx) =>
  createLayout(ctx, [
    {
      name: 'S',
      category: 'standard',
      rows: Array.from({ length: MIXED_SEATS / 100 }, (_, r) => ({ row: `R${r + 1}`, seats: 100 })),
    },
    { name: 'FLOOR', category: 'standing', capacity: MIXED_PLACES },
  ]);

/** The body of a hold: `seats` fresh seats (in order) and `places` places of FLOOR, from a mixed event. */
class Handout {
  private event = 0;
  private cursor = 0;
  private placesLeft = MIXED_PLACES;
  ranOut = false;
  constructor(
    private readonly events: string[],
    private readonly seats: number,
    private readonly places: number,
  ) {}

  next(): { eventId: string; body: Record<string, unknown> } {
    if (this.cursor + this.seats > MIXED_SEATS || this.placesLeft < this.places) {
      this.event = (this.event + 1) % this.events.length;
      this.ranOut ||= this.event === 0;
      this.cursor = 0;
      this.placesLeft = MIXED_PLACES;
    }
    const body: Record<string, unknown> = {};
    if (this.seats > 0) {
      body.seatIds = Array.from({ length: this.seats }, (_, k) => seatId(this.cursor + k));
    }
    if (this.places > 0) {
      body.places = [{ area: 'FLOOR', quantity: this.places }];
    }
    this.cursor += this.seats;
    this.placesLeft -= this.places;
    return { eventId: this.events[this.event], body };
  }
}

/** 2a. Commands the service sent, and all commands Redis ran (the scripts' own included), per hold. */
async function commandsPerHold(ctx: Ctx): Promise<{ section: string; perHold: Record<string, number> }> {
  const sides: [string, (i: number) => Record<string, unknown>][] = [
    ['places alone, 1-4', (i) => ({ places: [{ area: 'FLOOR', quantity: 1 + (i % 4) }] })],
    [
      'named seats alone, 1-4',
      (i) => ({ seatIds: Array.from({ length: 1 + (i % 4) }, (_, k) => seatId(4 * i + k)) }),
    ],
    [
      'mixed, 2 seats + 2 places',
      (i) => ({ seatIds: [seatId(2 * i), seatId(2 * i + 1)], places: [{ area: 'FLOOR', quantity: 2 }] }),
    ],
    ['named seats, 4', (i) => ({ seatIds: Array.from({ length: 4 }, (_, k) => seatId(4 * i + k)) })],
  ];
  const HOLDS = 300;
  const control = new Redis(ctx.redisUrl);
  const rows: (string | number)[][] = [];
  const perHold: Record<string, number> = {};
  const ownPerHold: Record<string, number> = {};
  try {
    for (const [name, body] of sides) {
      const eventId = await seatsAndFloor(ctx);
      const monitor = await new Redis(ctx.redisUrl, { lazyConnect: true }).monitor();
      const sent = new Map<string, number>();
      let ran = 0;
      let done = false;
      const end = `commands-per-hold:${name}`;
      monitor.on('monitor', (_t: string, args: string[], source: string) => {
        const cmd = args[0].toLowerCase();
        if (cmd === 'echo' && args[1] === end) {
          done = true;
        } else if (cmd !== 'monitor' && cmd !== 'echo') {
          ran++;
          if (!source.includes('lua')) {
            // a hold's own: FCALL holdCreate and the seat lock's EVALSHA (a seat's lock among its keys); the
            // rest is background work (the status relay, the sweeper, the rate limiter's sync)
            const label =
              cmd === 'fcall'
                ? `FCALL ${args[1].replace(/_[^_]*$/, '')}`
                : cmd === 'evalsha' && args.some((a) => /seat:\{s\d+\}:/.test(a))
                  ? 'EVALSHA seat lock'
                  : cmd.toUpperCase();
            sent.set(label, (sent.get(label) ?? 0) + 1);
          }
        }
      });
      let made = 0;
      for (let i = 0; i < HOLDS; i++) {
        const res = await fetch(`${ctx.service.base}/v1/events/${eventId}/holds`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth(ctx, 10_000 + i) },
          body: JSON.stringify(body(i)),
        });
        await res.arrayBuffer();
        made += res.status === 201 ? 1 : 0;
      }
      await control.echo(end);
      while (!done) {
        await new Promise((r) => setTimeout(r, 20));
      }
      monitor.disconnect();
      const total = [...sent.values()].reduce((a, b) => a + b, 0);
      perHold[name] = total / Math.max(1, made);
      const own =
        ((sent.get('FCALL holdCreate') ?? 0) + (sent.get('EVALSHA seat lock') ?? 0)) / Math.max(1, made);
      ownPerHold[name] = own;
      rows.push([
        name,
        `${made} of ${HOLDS}`,
        own.toFixed(2),
        (total / Math.max(1, made)).toFixed(2),
        [...sent]
          .sort((a, b) => b[1] - a[1])
          .map(([c, n]) => `${c} ${(n / Math.max(1, made)).toFixed(2)}`)
          .join(', '),
        (ran / Math.max(1, made)).toFixed(1),
      ]);
      console.log(rows.at(-1)!.join('  '));
    }
  } finally {
    control.disconnect();
  }
  const ratio = perHold['places alone, 1-4'] / perHold['named seats alone, 1-4'];
  const section = [
    `## Redis commands per hold (MONITOR, ${HOLDS} holds one at a time, each side on a new event of ${MIXED_SEATS.toLocaleString('en')} seats and ${MIXED_PLACES.toLocaleString('en')} places)`,
    '',
    table(
      [
        'hold',
        '201',
        "the hold's own commands (seat lock, hold script)",
        'commands the service sent per hold, background work included',
        'by command',
        "commands Redis ran per hold (the scripts' own included, background work too)",
      ],
      rows,
    ),
    '',
    `Places / named seats, the hold's own commands: ${ownPerHold['places alone, 1-4'].toFixed(2)} / ` +
      `${ownPerHold['named seats alone, 1-4'].toFixed(2)}; all commands sent per hold: ${perHold['places alone, 1-4'].toFixed(2)} / ` +
      `${perHold['named seats alone, 1-4'].toFixed(2)} = ${ratio.toFixed(2)} (target: no more: ${ratio <= 1.0 ? 'met' : 'not met'}).`,
  ].join('\n');
  return { section, perHold };
}

/** One closed-loop run of 32 connections holding what `handout` gives. */
function holdRun(ctx: Ctx, handout: Handout, seconds: number, firstUser: number): Promise<LoadResult> {
  let n = 0;
  return load({
    url: ctx.service.base,
    connections: 32,
    durationSeconds: seconds,
    next: () => {
      const { eventId, body } = handout.next();
      return {
        method: 'POST',
        path: `/v1/events/${eventId}/holds`,
        headers: { 'content-type': 'application/json', ...auth(ctx, firstUser + (n++ % 5000)) },
        body: JSON.stringify(body),
      };
    },
  });
}

/** 2b. A mixed hold (2 seats + 2 places) against a hold of 4 seats, interleaved rounds. */
async function mixedHolds(ctx: Ctx): Promise<{ section: string; ratio: number }> {
  const sides = [
    {
      name: 'mixed, 2 seats + 2 places',
      seats: 2,
      places: 2,
      p99: [] as number[],
      rates: [] as number[],
      events: 0,
      cpu: { service: 0, redis: 0, holds: 0 },
    },
    {
      name: 'named seats, 4',
      seats: 4,
      places: 0,
      p99: [] as number[],
      rates: [] as number[],
      events: 0,
      cpu: { service: 0, redis: 0, holds: 0 },
    },
  ];
  // CPU per hold of the service and of Redis: steadier than a tail on a shared machine
  const pid = ctx.service.child.proc.pid!;
  const control = new Redis(ctx.redisUrl);
  const newEvents = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      ids.push(await seatsAndFloor(ctx));
    }
    return ids;
  };
  for (const side of sides) {
    // warm-up (not reported); its rate sizes the runs with twice the room, so no run runs out of seats
    const warm = await holdRun(
      ctx,
      new Handout(await newEvents(1), side.seats, side.places),
      MIXED_SECONDS,
      0,
    );
    side.events =
      Math.ceil(((warm.requests / warm.seconds) * MIXED_SECONDS * 2 * side.seats) / MIXED_SEATS) + 1;
  }
  const rows: (string | number)[][] = [];
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? sides : [...sides].reverse();
    for (const side of order) {
      const handout = new Handout(await newEvents(side.events), side.seats, side.places);
      const [cpu0, redis0] = [processCpuMs(pid), await redisCpuMs(control)];
      const r = await holdRun(ctx, handout, MIXED_SECONDS, 5000 * (round % 3));
      side.cpu.service += processCpuMs(pid) - cpu0;
      side.cpu.redis += (await redisCpuMs(control)) - redis0;
      side.cpu.holds += r.statuses[201] ?? 0;
      side.p99.push(r.latencyMs.p99);
      side.rates.push(Math.round((r.statuses[201] ?? 0) / r.seconds));
      rows.push([
        `${side.name} #${round}`,
        side.rates.at(-1)!,
        r.latencyMs.p50,
        r.latencyMs.p99,
        Object.entries(r.statuses)
          .filter(([s]) => s !== '201')
          .map(([s, n]) => `${s}×${n}`)
          .join(' ') + (handout.ranOut ? ' (ran out of seats)' : ''),
      ]);
      console.log(rows.at(-1)!.join('  '));
    }
    ratios.push(sides[0].p99.at(-1)! / sides[1].p99.at(-1)!);
  }
  control.disconnect();
  const ratio = median(ratios);
  const us = (ms: number, s: (typeof sides)[number]) => Math.round((ms * 1000) / Math.max(1, s.cpu.holds));
  const section = [
    `## A mixed hold (2 seats + 2 places) vs a 4-seat hold: 32 connections, ${MIXED_SECONDS} s per run, ${ROUNDS} interleaved rounds`,
    '',
    table(['run', 'holds/s', 'p50 ms', 'p99 ms', 'other answers'], rows),
    '',
    table(
      [
        'side',
        'p99 ms (median of rounds)',
        'holds/s (median)',
        'service CPU per hold µs',
        'Redis CPU per hold µs',
      ],
      sides.map((s) => [s.name, median(s.p99), median(s.rates), us(s.cpu.service, s), us(s.cpu.redis, s)]),
    ),
    '',
    `Mixed / 4 seats, p99: ${ratio.toFixed(2)} (median of the rounds' ratios ${ratios.map((x) => x.toFixed(2)).join(', ')}; ` +
      `target at most 1.2: ${ratio <= 1.2 ? 'met' : 'not met'}); holds/s ${(median(sides[0].rates) / median(sides[1].rates)).toFixed(2)}; ` +
      `CPU per hold, service ${(us(sides[0].cpu.service, sides[0]) / us(sides[1].cpu.service, sides[1])).toFixed(2)}, ` +
      `Redis ${(us(sides[0].cpu.redis, sides[0]) / us(sides[1].cpu.redis, sides[1])).toFixed(2)}.`,
  ].join('\n');
  return { section, ratio };
}

/** Follows an event's change log as it is written, checking each area frame against the capacity. */
function followChanges(redisUrl: string, eventId: string, capacity: number) {
  const key = KEY_PREFIX + layout.eventKeys(eventId).changes;
  const reader = new Redis(redisUrl);
  const seen = { entries: 0, frames: 0, over: 0, gaps: 0, first: 0, last: 0, maxTaken: 0 };
  let stop = false;
  let lastId = '0';
  const take = (entries: [string, string[]][]) => {
    for (const [id, fields] of entries) {
      const v = Number(id.split('-')[0]);
      if (seen.last === 0) {
        seen.first = v;
      } else if (v !== seen.last + 1) {
        seen.gaps++;
      }
      seen.last = v;
      seen.entries++;
      lastId = id;
      for (let i = 0; i < fields.length; i += 2) {
        if (fields[i] === '@FLOOR') {
          // '@<area>' -> "capacity|held|booked|blocked" (places.lua areas_flush)
          const [cap, held, booked, blocked] = fields[i + 1].split('|').map(Number);
          seen.frames++;
          seen.maxTaken = Math.max(seen.maxTaken, held + booked + blocked);
          if (held + booked + blocked > capacity || cap !== capacity) {
            seen.over++;
          }
        }
      }
    }
  };
  const loop = (async () => {
    while (!stop) {
      const r = await reader.xread('COUNT', 5000, 'BLOCK', 100, 'STREAMS', key, lastId);
      if (r) {
        take(r[0][1]);
      }
    }
    // what was written after the last read
    take(await reader.xrange(key, `(${lastId}`, '+'));
  })();
  return {
    seen,
    done: async () => {
      stop = true;
      await loop;
      reader.disconnect();
      return seen;
    },
  };
}

interface Sale {
  result: LoadResult;
  /** places or seats in 201 answers */
  granted: number;
  /** places held after the measured window, until the area was sold out */
  topUp: number;
  duplicates: number;
  /** live holds after the sale, each confirmed */
  toConfirm: number;
  confirmed: number;
  confirmStatuses: Record<string, number>;
  end: { free: number; held: number; booked: number };
  log: ReturnType<typeof followChanges>['seen'];
}

/** Every live (ACTIVE) hold of the event, from the staff listing, a page at a time. */
async function liveHolds(ctx: Ctx, eventId: string): Promise<{ holdId: string; user: number }[]> {
  const out: { holdId: string; user: number }[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const res = await fetch(
      `${ctx.service.base}/v1/events/${eventId}/holds?status=ACTIVE&limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      { headers: { authorization: `Bearer ${ctx.admin}` } },
    );
    if (res.status !== 200) {
      throw new Error(`list holds: ${res.status} ${await res.text()}`);
    }
    const page = (await res.json()) as {
      items: { holdId: string; userId: string }[];
      nextCursor: string | null;
    };
    out.push(...page.items.map((h) => ({ holdId: h.holdId, user: Number(h.userId.slice('user-'.length)) })));
    cursor = page.nextCursor;
  }
  return out;
}

/**
 * 2c. One flash sale. Outside its measured window: a places sale the window left unfinished goes on, 8
 * buyers at a time, until the area answers 409 SOLD_OUT with 0 free; then every live hold (those whose
 * answer the window's end cut off too) is confirmed by CONFIRMERS checkouts, so the sell-out is checked
 * every time and the window measures the holds alone, on both sides.
 */
async function flashSale(ctx: Ctx, kind: 'places' | 'seats', firstUser: number): Promise<Sale> {
  const eventId =
    kind === 'places'
      ? await floorOnly(ctx, SALE_CAPACITY)
      : await createLayout(ctx, [
          {
            name: 'S',
            category: 'standard',
            rows: Array.from({ length: SALE_CAPACITY / 100 }, (_, r) => ({ row: `R${r + 1}`, seats: 100 })),
          },
        ]);
  const follower = followChanges(ctx.redisUrl, eventId, SALE_CAPACITY);
  const grantedSeats: string[] = [];
  let grantedPlaces = 0;
  let n = 0;
  const result = await load({
    url: ctx.service.base,
    connections: SALE_CONNECTIONS,
    durationSeconds: SECONDS,
    next: () => {
      const count = 1 + Math.floor(Math.random() * 4);
      let body: unknown;
      if (kind === 'places') {
        body = { places: [{ area: 'FLOOR', quantity: count }] };
      } else {
        const wanted = new Set<string>();
        while (wanted.size < count) {
          wanted.add(seatId(Math.floor(Math.random() * SALE_CAPACITY)));
        }
        body = { seatIds: [...wanted] };
      }
      return {
        method: 'POST',
        path: `/v1/events/${eventId}/holds`,
        headers: { 'content-type': 'application/json', ...auth(ctx, firstUser + (n++ % 5000)) },
        body: JSON.stringify(body),
      };
    },
    onResponse: (status, text) => {
      if (status === 201) {
        const h = JSON.parse(text) as { seatIds: string[]; places?: { quantity: number }[] };
        grantedSeats.push(...h.seatIds);
        grantedPlaces += (h.places ?? []).reduce((a, p) => a + p.quantity, 0);
      }
    },
  });
  let topUp = 0;
  let buyers = 0;
  const buyer = async () => {
    for (let free = 1; kind === 'places' && free > 0;) {
      const res = await fetch(`${ctx.service.base}/v1/events/${eventId}/holds`, {
        method: 'POST',
        // users of their own, a new one each time (the per-user cap counts places)
        headers: { 'content-type': 'application/json', ...auth(ctx, TOP_UP_USERS + (buyers++ % 1000)) },
        body: JSON.stringify({ places: [{ area: 'FLOOR', quantity: 1 + Math.floor(Math.random() * 4) }] }),
      });
      const body = (await res.json()) as { places: { quantity: number }[]; errors?: { free: number }[] };
      if (res.status === 201) {
        topUp += body.places[0].quantity;
      } else if (res.status === 409) {
        free = body.errors![0].free;
      } else {
        throw new Error(`top-up hold: ${res.status} ${JSON.stringify(body)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, buyer));
  const queue = await liveHolds(ctx, eventId);
  const toConfirm = queue.length;
  let confirmed = 0;
  const confirmStatuses: Record<string, number> = {};
  const checkout = async () => {
    for (let h = queue.shift(); h; h = queue.shift()) {
      for (let attempt = 0; attempt < 20; attempt++) {
        const res = await fetch(`${ctx.service.base}/v1/holds/${h.holdId}/confirm`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth(ctx, h.user) },
          body: JSON.stringify({ orderId: `o-${h.holdId}` }),
        });
        await res.arrayBuffer();
        confirmStatuses[res.status] = (confirmStatuses[res.status] ?? 0) + 1;
        confirmed += res.status === 201 ? 1 : 0;
        if (res.status !== 503) {
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CONFIRMERS }, checkout));
  const view = (await (
    await fetch(`${ctx.service.base}/v1/events/${eventId}`, { headers: auth(ctx, 0) })
  ).json()) as {
    counts: { available: number; held: number; booked: number };
    areas?: { free: number; held: number; booked: number }[];
  };
  const end =
    kind === 'places'
      ? view.areas![0]
      : { free: view.counts.available, held: view.counts.held, booked: view.counts.booked };
  return {
    result,
    granted: kind === 'places' ? grantedPlaces : grantedSeats.length,
    topUp,
    duplicates: grantedSeats.length - new Set(grantedSeats).size,
    toConfirm,
    confirmed,
    confirmStatuses,
    end,
    log: await follower.done(),
  };
}

async function flashSales(ctx: Ctx): Promise<{ section: string; ratio: number; ok: boolean; busy: number }> {
  const kinds = ['places', 'seats'] as const;
  const names = {
    places: `${SALE_CAPACITY.toLocaleString('en')} places of one area`,
    seats: `${SALE_CAPACITY.toLocaleString('en')} named seats`,
  };
  // warm-up (not reported): JIT, connection pools, scripts
  for (const kind of kinds) {
    await flashSale(ctx, kind, 0);
  }
  const sales: Record<string, Sale[]> = { places: [], seats: [] };
  const rows: (string | number)[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? kinds : [...kinds].reverse();
    for (const kind of order) {
      const s = await flashSale(ctx, kind, 5000 * (round % 3));
      sales[kind].push(s);
      const r = s.result;
      rows.push([
        `${names[kind]} #${round}`,
        r.requests,
        Math.round(r.requests / r.seconds),
        r.statuses[201] ?? 0,
        `${share(r, 503).toFixed(2)} %`,
        r.latencyMs.p99,
        kind === 'places' ? `${s.granted} (+${s.topUp} after)` : s.granted,
        `${s.confirmed} of ${s.toConfirm}`,
        `${s.end.free} / ${s.end.held} / ${s.end.booked}`,
        kind === 'places'
          ? `${s.log.frames} frames, max ${s.log.maxTaken}, over ${s.log.over}, gaps ${s.log.gaps}, from v${s.log.first}`
          : `seats in two 201s: ${s.duplicates}`,
        Object.entries(r.statuses)
          .map(([c, k]) => `${c}×${k}`)
          .join(' ') +
          '; confirms: ' +
          Object.entries(s.confirmStatuses)
            .map(([c, k]) => `${c}×${k}`)
            .join(' '),
      ]);
      console.log(rows.at(-1)!.join('  '));
    }
  }
  const rate = (xs: Sale[]) => median(xs.map((s) => s.result.requests / s.result.seconds));
  const ratio = rate(sales.places) / rate(sales.seats);
  const places = sales.places;
  const busy = places.reduce((a, s) => a + (s.result.statuses[503] ?? 0), 0);
  const answers = places.reduce((a, s) => a + s.result.requests, 0);
  const over = places.reduce((a, s) => a + s.log.over, 0);
  const gaps = places.reduce((a, s) => a + s.log.gaps + (s.log.first === 1 ? 0 : 1), 0);
  const frames = places.reduce((a, s) => a + s.log.frames, 0);
  const soldOut = places.every((s) => s.end.free === 0 && s.end.held === 0 && s.end.booked === SALE_CAPACITY);
  const ok = over === 0 && gaps === 0 && soldOut && busy === 0;
  const section = [
    `## Flash sale over HTTP: ${SALE_CONNECTIONS} connections asking 1-4 each, a new event each, ${SECONDS} s per sale, ${ROUNDS} interleaved rounds; then every live hold confirmed, ${CONFIRMERS} checkouts at a time`,
    '',
    table(
      [
        'sale',
        'answers',
        'answers/s',
        '201',
        '503 share',
        'p99 ms',
        'places or seats in 201s (places held after the window until sold out)',
        'live holds after the sale: confirmed',
        'end: free / held / booked',
        'change log read as written (area frames: max held + booked, frames over the capacity, gaps)',
        'statuses (holds in the window; confirms)',
      ],
      rows,
    ),
    '',
    `Places / named seats, median answers/s: ${rate(sales.places).toFixed(0)} / ${rate(sales.seats).toFixed(0)} = ` +
      `${ratio.toFixed(2)} (target at least 1.0: ${ratio >= 1.0 ? 'met' : 'not met'}; the rounds' ratios ` +
      `${places.map((s, i) => (s.result.requests / s.result.seconds / (sales.seats[i].result.requests / sales.seats[i].result.seconds)).toFixed(2)).join(', ')}).`,
    '',
    `Places: 503 share ${((100 * busy) / Math.max(1, answers)).toFixed(2)} % (${busy} of ${answers}; target 0 %: ${busy === 0 ? 'met' : 'not met'}); ` +
      `${frames} area frames read, held + booked above ${SALE_CAPACITY.toLocaleString('en')} in ${over} (target 0: ${over === 0 ? 'met' : 'not met'}), ` +
      `change-log gaps ${gaps}; every place booked at the end, 0 free and 0 held: ${soldOut ? 'yes (met)' : 'no (not met)'}.`,
  ].join('\n');
  return { section, ratio, ok, busy };
}

/** BENCH_ONLY=memory|commands|mixed|sale runs that part alone, printed, no report. */
const ONLY = process.env.BENCH_ONLY;

async function main(): Promise<void> {
  const memory = !ONLY || ONLY === 'memory' ? await areaMemory(config) : undefined;
  if (ONLY === 'memory') {
    return;
  }
  const redis = await startPrivateRedis([], REDIS_PORT);
  const service = await startService('areas', redis.url, { HOLD_MAX_SEATS_PER_USER: '40' });
  try {
    const ctx: Ctx = {
      service,
      redisUrl: redis.url,
      jwt: await Promise.all(Array.from({ length: USERS }, (_, u) => service.token(u))),
      admin: await signBenchToken('bench-admin', ['admin']),
    };
    const commands = !ONLY || ONLY === 'commands' ? await commandsPerHold(ctx) : undefined;
    const mixed = !ONLY || ONLY === 'mixed' ? await mixedHolds(ctx) : undefined;
    const sale = !ONLY || ONLY === 'sale' ? await flashSales(ctx) : undefined;
    if (ONLY) {
      console.log([commands?.section, mixed?.section, sale?.section].filter(Boolean).join('\n\n'));
      return;
    }
    const file = writeReport('areas', 'General-admission areas vs named seats', 'npm run bench:areas', [
      sale!.section,
      '',
      commands!.section,
      '',
      mixed!.section,
      '',
      memory!.section,
    ]);
    console.log(`report: ${file}`);
  } finally {
    await service.stop();
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
