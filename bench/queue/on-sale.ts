/**
 * bench:queue's simulated on-sale: two seat API instances on one private Redis, one PostgreSQL schema and
 * one seat.status topic; a 2,000-seat show, pace 600 a minute, cap 200. 10,000 users join in the 5 s before
 * the sales start and 2,000 after it; each reads their entry every refreshAfterSeconds the API asks for
 * (20 % stop at some moment while they wait), and reads it at once when the public status shows its number
 * served (as a page watching the status stream does); once admitted, 10 % never hold, the others hold 1-4 seats
 * (best available) with their pass, then after 30-120 s confirm (40 %), release (20 %) or let the hold
 * expire (40 %); one who finds no seats tries again twice, then leaves the queue. Mid-sale one instance is
 * killed with kill -9: its users' requests go to the other from then on, as a load balancer's would.
 *
 * Time is scaled by BENCH_SALE_SCALE (default 10): the pace is 600 × scale a minute, holds last 30-120 s
 * ÷ scale and their ttl is 180 s ÷ scale, a pass lasts 600 s ÷ scale (the API's floor: 60 s). Not
 * scaled: the joining (BENCH_SALE_JOIN_SECONDS, 20 s: the two instances and this client on 2 cores take
 * 10,000 joins in no less), the cap, the entries' idle time (60 s; so that 12,000 clients read their entry
 * every 20 s at most, as they would in a real sale) and the clients' reads. The one-minute stall bound is
 * compared in sale time (a gap × scale). The sale ends when every seat is booked, or BENCH_SALE_SECONDS after
 * the start.
 *
 * Checked from the seat.status topic, record by record: a hold made for a user without an active turn
 * (no valid pass), active shoppers above the cap, a seat in two live holds; and from the clients: holds
 * without or with a wrong pass that were taken (probes every second), entries, numbers and passes read
 * from the survivor after the kill against what the killed one said.
 */
import { TopicProbe } from '../../test/support/kafka-probe';
import { startPrivateRedis } from '../../test/support/private-redis';
import { redisCpuMs } from '../support/cpu-time';
import { table } from '../support/report';
import { BenchService, startService } from '../support/service';
import { callsSince, commandCalls } from './queue-costs';
import { Answer, BoundedClient, quantile, setUpQueue, sleep, tokenOf, untilTime } from './queue-client';

export const SALE_SCALE = Number(process.env.BENCH_SALE_SCALE ?? 10);
const SALE_SECONDS = Number(process.env.BENCH_SALE_SECONDS ?? 240);
const SEATS = 2000;
const CAP = 200;
const PACE = 600 * SALE_SCALE;
const EARLY = 10_000;
/** The early ones join over this window before the start: BENCH_SALE_JOIN_SECONDS (20; not scaled). */
const JOIN_WINDOW_MS = Number(process.env.BENCH_SALE_JOIN_SECONDS ?? 20) * 1000;
const LATE = 2_000;
/** The late joiners arrive over the first two minutes of the sale (scaled). */
const LATE_SPREAD_MS = 120_000 / SALE_SCALE;
const HOLD_MIN_MS = 30_000 / SALE_SCALE;
const HOLD_MAX_MS = 120_000 / SALE_SCALE;
/** Half as long again as the longest hold: a confirm sent late by a busy client still finds its hold. */
const HOLD_TTL_S = Math.ceil((1.5 * 120) / SALE_SCALE);
const PASS_TTL_S = Math.max(60, Math.round(600 / SALE_SCALE));
const IDLE_TTL_S = 60;
/**
 * A client reads its entry every refreshAfterSeconds, but not more often than this (BENCH_SALE_MIN_POLL_SECONDS,
 * 15): near the start the API asks waiting clients for a read every 2 s, which 10,000 simulated clients and two
 * instances on 2 cores cannot keep up with; a page watching the status reads its entry when its turn comes
 * anyway, and 15 s is well inside the idle time (60 s).
 */
const MIN_POLL_MS = Number(process.env.BENCH_SALE_MIN_POLL_SECONDS ?? 15) * 1000;
const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';

interface User {
  id: string;
  token: string;
  /** the instance this user's requests go to (0 or 1); moved to the other when it does not answer */
  inst: number;
  entryId?: string;
  number?: number;
  pass?: string;
  /** the instance that last answered about the entry, for the survival check */
  lastFrom?: number;
  stopsPollingAt: number;
  /** the current chain of reads (a read sent when the status shows the user's turn replaces the timer's) */
  gen: number;
  /** their turn is over: their hold was confirmed or released */
  turnOver: boolean;
  neverHolds: boolean;
  outcome: 'confirm' | 'release' | 'expire';
  finished: boolean;
}

export interface SaleFigures {
  section: string;
  joined: number;
  admitted: number;
  redisCommands: number;
  redisCpuMs: number;
  passBytes: number;
  entryReadsPerSecond: number;
}

export async function onSaleSection(): Promise<SaleFigures> {
  const redis = await startPrivateRedis();
  const env = { HOLD_MIN_TTL_SECONDS: '1', SEAT_LOCK_WAIT_MS: '2000' };
  const a = await startService('sale_a', redis.url, env);
  const b = await startService('sale_b', redis.url, env, { schema: a.schema });
  const services: BenchService[] = [a, b];
  const alive = [true, true];
  const probe = await TopicProbe.start(`${a.schema}.seat-status`, BROKERS);
  // per instance: one pool for the waiting clients' reads, one for joins and shopping (a hold or a confirm
  // never waits behind other people's reads, as it would not in their own browsers)
  const reads = [new BoundedClient(64), new BoundedClient(64)];
  const clients = [new BoundedClient(96), new BoundedClient(96)];
  try {
    const eventId = await a.createEvent(SEATS);
    await fetch(`${a.base}/v1/events/${eventId}/seats`);
    const { salesStartAtMs } = await setUpQueue(a, eventId, {
      opensInMs: 1500,
      prequeueMs: JOIN_WINDOW_MS + 500,
      order: 'shuffle-then-fifo',
      admitPerMinute: PACE,
      maxActiveShoppers: CAP,
      passTtlSeconds: PASS_TTL_S,
      idleEntryTtlSeconds: IDLE_TTL_S,
    });
    const stats = {
      joinedBeforeStart: 0,
      joins: 0,
      polls: 0,
      holds201: 0,
      holds409: 0,
      holdsOther: new Map<string, number>(),
      confirmed: 0,
      bookedSeats: 0,
      released: 0,
      leftNoSeats: 0,
      stoppedPolling: 0,
      unanswered: 0,
      // the survival check: a user's first answer from the survivor against the killed instance's
      survivorChecks: 0,
      survivorMismatches: 0,
      passesAcross: 0,
      probes: new Map<string, number>(),
      probesTaken: 0,
    };
    const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    let ended = false;
    let killedAt = 0;
    const call = async (
      u: User,
      method: string,
      path: string,
      body?: unknown,
      headers = {},
      pool = clients,
    ): Promise<Answer & { from: number }> => {
      for (let tries = 0; tries < 2; tries++) {
        if (!alive[u.inst]) {
          u.inst = 1 - u.inst;
        }
        const from = u.inst;
        const ans = await pool[from].call(services[from].base, method, path, u.token, body, headers);
        if (ans.status !== 0) {
          return { ...ans, from };
        }
        stats.unanswered++;
        if (killedAt > 0) {
          u.inst = 1 - from; // that instance is gone: the load balancer sends the user to the other
        }
      }
      return { status: 0, body: undefined, from: u.inst };
    };
    const users: User[] = Array.from({ length: EARLY + LATE }, (_, i) => {
      const r = Math.random();
      return {
        id: `shopper-${i}`,
        token: tokenOf(`shopper-${i}`),
        inst: i % 2,
        // one in five stops reading their entry at some moment in the first minutes of waiting
        stopsPollingAt: Math.random() < 0.2 ? 0 : Infinity,
        gen: 0,
        turnOver: false,
        neverHolds: Math.random() < 0.1,
        outcome: r < 0.4 ? 'confirm' : r < 0.6 ? 'release' : 'expire',
        finished: false,
      };
    });
    const survived = (u: User, ans: Answer & { from: number }) => {
      if (killedAt > 0 && u.lastFrom !== undefined && !alive[u.lastFrom] && ans.from !== u.lastFrom) {
        stats.survivorChecks++;
        const samePass = !u.pass || !ans.body.pass || ans.body.pass === u.pass;
        if (ans.body.entryId !== u.entryId || ans.body.number !== u.number || !samePass) {
          stats.survivorMismatches++;
        }
      }
      u.lastFrom = ans.from;
    };
    const later = (ms: number, f: () => Promise<void>) => {
      setTimeout(() => {
        if (!ended) {
          void f().catch((e) => console.error(e));
        }
      }, ms);
    };
    const hold = async (u: User, quantity: number, tries: number): Promise<void> => {
      const ans = await call(
        u,
        'POST',
        `/v1/events/${eventId}/holds`,
        { bestAvailable: { quantity }, ttlSeconds: HOLD_TTL_S },
        { 'queue-pass': u.pass! },
      );
      if (ans.status === 201) {
        stats.holds201++;
        if (killedAt > 0 && u.lastFrom !== undefined && !alive[u.lastFrom] && ans.from !== u.lastFrom) {
          stats.passesAcross++;
        }
        const holdId = ans.body.holdId as string;
        const seats = (ans.body.seatIds as string[]).length;
        later(HOLD_MIN_MS + Math.random() * (HOLD_MAX_MS - HOLD_MIN_MS), async () => {
          if (u.outcome === 'confirm') {
            const c = await call(u, 'POST', `/v1/holds/${holdId}/confirm`, { orderId: `order-${u.id}` });
            if (c.status === 200 || c.status === 201) {
              u.turnOver = true;
              stats.confirmed++;
              stats.bookedSeats += seats;
            } else {
              count(stats.holdsOther, `confirm ${c.status} ${c.body?.code ?? ''}`);
            }
          } else if (u.outcome === 'release') {
            const r = await call(u, 'DELETE', `/v1/holds/${holdId}`);
            stats.released += r.status === 204 || r.status === 200 ? 1 : 0;
            u.turnOver = r.status === 204;
          }
          u.finished = true;
        });
        return;
      }
      if (ans.status === 409 && tries < 3) {
        stats.holds409++;
        later(1000, () => hold(u, 1, tries + 1));
        return;
      }
      if (ans.status === 409) {
        stats.leftNoSeats++;
        await call(u, 'DELETE', `/v1/queue/entries/${u.entryId}`);
      } else {
        count(stats.holdsOther, `${ans.status} ${ans.body?.code ?? ''}`);
      }
      u.finished = true;
    };
    const poll = async (u: User, gen: number): Promise<void> => {
      if (gen !== u.gen || u.pass) {
        return;
      }
      if (Date.now() >= u.stopsPollingAt) {
        stats.stoppedPolling++;
        return;
      }
      const ans = await call(u, 'GET', `/v1/queue/entries/${u.entryId}`, undefined, {}, reads);
      stats.polls++;
      if (ans.status !== 200) {
        later(2000, () => poll(u, u.gen));
        return;
      }
      if (u.pass) {
        return; // a read sent on the status's word got there first
      }
      survived(u, ans);
      u.number = ans.body.number;
      if (ans.body.status === 'ADMITTED' && ans.body.pass) {
        u.pass = ans.body.pass;
        if (!u.neverHolds) {
          await hold(u, 1 + Math.floor(Math.random() * 4), 0);
        }
        return;
      }
      if (ans.body.status === 'WAITING' || ans.body.status === 'PREQUEUE') {
        const next = ++u.gen;
        later(Math.max(MIN_POLL_MS, ans.body.refreshAfterSeconds * 1000), () => poll(u, next));
      }
    };
    const join = async (u: User): Promise<void> => {
      const ans = await call(u, 'POST', `/v1/events/${eventId}/queue/entries`);
      if (ans.status !== 201 && ans.status !== 200) {
        count(stats.holdsOther, `join ${ans.status} ${ans.body?.code ?? ''}`);
        return;
      }
      stats.joins++;
      stats.joinedBeforeStart += ans.body.status === 'PREQUEUE' ? 1 : 0;
      u.entryId = ans.body.entryId;
      u.number = ans.body.number;
      u.lastFrom = ans.from;
      if (u.stopsPollingAt === 0) {
        u.stopsPollingAt = Date.now() + Math.random() * 180_000;
      }
      const next = ++u.gen;
      later(Math.max(MIN_POLL_MS, ans.body.refreshAfterSeconds * 1000), () => poll(u, next));
    };
    // probes of the gate: holds with no pass, someone else's pass, a pass whose turn is over; none may be taken
    const prober: User = {
      id: 'prober',
      token: tokenOf('prober'),
      inst: 0,
      stopsPollingAt: 0,
      gen: 0,
      turnOver: false,
      neverHolds: true,
      outcome: 'expire',
      finished: false,
    };
    const probeGate = async () => {
      const withPass = async (name: string, pass?: string) => {
        const ans = await call(
          prober,
          'POST',
          `/v1/events/${eventId}/holds`,
          { bestAvailable: { quantity: 1 }, ttlSeconds: HOLD_TTL_S },
          pass ? { 'queue-pass': pass } : {},
        );
        count(stats.probes, `${name}: ${ans.status} ${ans.body?.code ?? ''}`);
        stats.probesTaken += ans.status === 201 ? 1 : 0;
      };
      await withPass('no pass');
      const holder = users.find((u) => u.pass && !u.finished);
      if (holder) {
        await withPass("another user's pass", holder.pass);
      }
      const done = users.find((u) => u.pass && u.turnOver);
      if (done) {
        // the user's own, after their turn ended
        const ans = await call(
          done,
          'POST',
          `/v1/events/${eventId}/holds`,
          { bestAvailable: { quantity: 1 }, ttlSeconds: HOLD_TTL_S },
          { 'queue-pass': done.pass! },
        );
        const ownFinished = ans.status === 201 ? 'taken' : `${ans.status} ${ans.body?.code ?? ''}`;
        count(stats.probes, `own pass, turn over: ${ownFinished}`);
        stats.probesTaken += ans.status === 201 ? 1 : 0;
      }
    };
    const callsBefore = await commandCalls(redis.client);
    const cpuBefore = await redisCpuMs(redis.client);
    // the 10,000 in the 5 s before the start, the 2,000 over the sale's first (scaled) minutes
    users
      .slice(0, EARLY)
      .forEach((u) =>
        setTimeout(
          () => void join(u),
          Math.max(0, salesStartAtMs - JOIN_WINDOW_MS + Math.random() * (JOIN_WINDOW_MS - 100) - Date.now()),
        ),
      );
    users
      .slice(EARLY)
      .forEach((u) =>
        setTimeout(() => void join(u), salesStartAtMs + 200 + Math.random() * LATE_SPREAD_MS - Date.now()),
      );
    const samples: { t: number; waiting: number; active: number; serving: number; paused: boolean }[] = [];
    let served = 0;
    let passBytes = 0;
    let passesKept = 0;
    const sampler = setInterval(() => {
      const i = alive[0] ? 0 : 1;
      void fetch(`${services[i].base}/v1/events/${eventId}/queue`)
        .then((r) => r.json())
        .then((s: any) => {
          samples.push({
            t: Date.now(),
            waiting: s.waiting,
            active: s.activeShoppers,
            serving: s.servingNumber,
            paused: s.paused,
          });
          // a page watching the status (its stream, or these reads) reads its entry as soon as its number is served
          if (s.servingNumber > served) {
            for (const u of users) {
              if (
                u.entryId &&
                !u.pass &&
                u.number! > served &&
                u.number! <= s.servingNumber &&
                Date.now() < u.stopsPollingAt
              ) {
                void poll(u, ++u.gen);
              }
            }
            served = s.servingNumber;
          }
        })
        .catch(() => undefined);
    }, 500);
    const prober1s = setInterval(() => void probeGate().catch(() => undefined), 1000);
    await untilTime(salesStartAtMs);
    const deadline = salesStartAtMs + SALE_SECONDS * 1000;
    // kill -9 of instance a mid-sale: when half the show is booked, or halfway to the deadline
    while (Date.now() < deadline && stats.bookedSeats < SEATS) {
      if (
        !killedAt &&
        (stats.bookedSeats >= SEATS / 2 || Date.now() >= salesStartAtMs + (SALE_SECONDS * 1000) / 2)
      ) {
        // what one admitted shopper's pass costs in Redis, while some are active
        const [tKey] = await redis.client.keys(`*${eventId}:q:t`);
        if (tKey) {
          passesKept = await redis.client.hlen(tKey);
          passBytes =
            Number(await redis.client.memory('USAGE', tKey, 'SAMPLES', '0')) / Math.max(1, passesKept);
        }
        alive[0] = false;
        killedAt = Date.now();
        await a.child.stop('SIGKILL');
        console.log(
          `killed instance a at +${((killedAt - salesStartAtMs) / 1000).toFixed(1)} s, ${stats.bookedSeats} seats booked`,
        );
      }
      await sleep(250);
    }
    const endedAt = Date.now();
    ended = true;
    clearInterval(sampler);
    clearInterval(prober1s);
    const calls = callsSince(callsBefore, await commandCalls(redis.client));
    const cpu = (await redisCpuMs(redis.client)) - cpuBefore;
    await sleep(3000); // the relay's last records reach the topic
    const report = analyse(probe, eventId, salesStartAtMs, endedAt, killedAt);
    const byId = new Map(users.map((u) => [u.id, u]));
    const admittedUsers = [...report.admittedUsers].map((id) => byId.get(id)).filter((u) => u !== undefined);
    const neverRead = admittedUsers.filter((u) => !u.pass).length;
    const neverHeld = admittedUsers.filter((u) => u.pass && u.neverHolds).length;
    const redisCommands = [...calls.values()].reduce((x, y) => x + y, 0);
    const pollSeconds = (endedAt - salesStartAtMs + 5000) / 1000;
    const probeText = [...stats.probes].map(([k, v]) => `${k} ×${v}`).join('; ');
    const other = [...stats.holdsOther].map(([k, v]) => `${k} ×${v}`).join('; ') || 'none';
    const gap = report.killGapMs;
    const section =
      `## A simulated on-sale, two instances, one killed with kill -9 mid-sale (time scale ${SALE_SCALE})\n\n` +
      `A ${SEATS.toLocaleString('en-US')}-seat show, cap ${CAP}, pace ${PACE.toLocaleString('en-US')} a minute (600 × ${SALE_SCALE}); holds of 1-4 seats (best ` +
      `available) kept ${HOLD_MIN_MS / 1000}-${HOLD_MAX_MS / 1000} s (30-120 s ÷ ${SALE_SCALE}), ttl ${HOLD_TTL_S} s; pass ${PASS_TTL_S} s; idle entries ` +
      `skipped after ${IDLE_TTL_S} s; the sale ran ${((endedAt - salesStartAtMs) / 1000).toFixed(0)} s (${(((endedAt - salesStartAtMs) * SALE_SCALE) / 60_000).toFixed(1)} ` +
      `minutes of sale time) and ended ${stats.bookedSeats >= SEATS ? 'sold out' : 'at BENCH_SALE_SECONDS'}. Instance a was killed ` +
      `${killedAt ? `at +${((killedAt - salesStartAtMs) / 1000).toFixed(1)} s` : 'never (the sale ended first)'}.\n\n` +
      table(
        ['figure', 'value', 'target'],
        [
          [
            'joined (before the start: answered PREQUEUE)',
            `${stats.joins} (${stats.joinedBeforeStart})`,
            `${EARLY + LATE} (${EARLY})`,
          ],
          [
            'admitted (ShopperAdmitted) / numbers passed over (idle, or left)',
            `${report.admitted} / ${Math.max(0, (samples.at(-1)?.serving ?? 0) - report.admitted)}`,
            '',
          ],
          [
            'admitted who never read their pass (stopped polling) / read it but never held: their place under the cap kept for the idle time after admission / until the pass ran out',
            `${neverRead} / ${neverHeld}`,
            '',
          ],
          [
            'holds taken / refused 409 (no seats; tried again) / other answers',
            `${stats.holds201} / ${stats.holds409} / ${other}`,
            '',
          ],
          [
            'confirmed (seats booked) / released / left finding no seats / stopped polling',
            `${stats.confirmed} (${stats.bookedSeats}) / ${stats.released} / ${stats.leftNoSeats} / ${stats.stoppedPolling}`,
            '',
          ],
          [
            'holds on the topic for a user without an active turn (no valid pass)',
            report.holdsWithoutTurn,
            `0: ${report.holdsWithoutTurn === 0 ? 'met' : 'not met'}`,
          ],
          [
            'probe holds (every second) taken without a valid pass',
            `${stats.probesTaken} (${probeText})`,
            `0: ${stats.probesTaken === 0 ? 'met' : 'not met'}`,
          ],
          [
            'active shoppers, highest at any change on the topic (records checked)',
            `${report.maxActive} (${report.turnRecords})`,
            `≤ ${CAP}: ${report.maxActive <= CAP ? 'met' : 'not met'}`,
          ],
          [
            'seats in two live holds at once (topic, record by record)',
            report.doubleHeld,
            `0: ${report.doubleHeld === 0 ? 'met' : 'not met'}`,
          ],
          [
            'entries read from the survivor after the kill whose id, number or pass differed',
            `${stats.survivorMismatches} of ${stats.survivorChecks}`,
            `0: ${stats.survivorMismatches === 0 ? 'met' : 'not met'}`,
          ],
          [
            'holds taken on the survivor with a pass last read from the killed instance',
            stats.passesAcross,
            '',
          ],
          ['requests unanswered (the killed instance; sent again to the survivor)', stats.unanswered, ''],
          [
            'kill → next admission (active shoppers at the kill)',
            killedAt ? `${(gap / 1000).toFixed(2)} s (${report.activeAtKill} of ${CAP})` : 'no kill',
            `≤ 5 s: ${killedAt && gap <= 5000 ? 'met' : 'not met'}`,
          ],
          [
            'longest time without an admission while seats were free and people waited',
            `${(report.longestStallMs / 1000).toFixed(2)} s (${((report.longestStallMs * SALE_SCALE) / 1000).toFixed(0)} s of sale time)`,
            `≤ 60 s of sale time: ${report.longestStallMs * SALE_SCALE <= 60_000 ? 'met' : 'not met'}`,
          ],
          [
            "the same, counting only gaps after an admission that left the cap room (the queue's own stall)",
            `${(report.longestRoomStallMs / 1000).toFixed(2)} s (${((report.longestRoomStallMs * SALE_SCALE) / 1000).toFixed(0)} s of sale time)`,
            `≤ 60 s of sale time: ${report.longestRoomStallMs * SALE_SCALE <= 60_000 ? 'met' : 'not met'}`,
          ],
          [
            'admitted per minute of sale time, while the cap had room and people waited (windows of 2 s)',
            report.paceWindows,
            `600 ± 5 %`,
          ],
          [
            "Redis during the sale: commands run (INFO commandstats, scripts' own included), CPU",
            `${redisCommands.toLocaleString('en-US')} (${(redisCommands / Math.max(1, stats.joins)).toFixed(1)} per joined user, ` +
              `${(redisCommands / Math.max(1, report.admitted)).toFixed(1)} per admitted), ${(cpu / 1000).toFixed(1)} s`,
            '',
          ],
          ['entry reads (polls) per second, all clients', (stats.polls / pollSeconds).toFixed(0), ''],
          [
            'Redis bytes per kept pass (the q:t hash, mid-sale)',
            passesKept ? `${passBytes.toFixed(0)} B (${passesKept} passes)` : 'n/a',
            '',
          ],
        ],
      );
    return {
      section,
      joined: stats.joins,
      admitted: report.admitted,
      redisCommands,
      redisCpuMs: cpu,
      passBytes,
      entryReadsPerSecond: stats.polls / pollSeconds,
    };
  } finally {
    await probe.stop();
    await b.stop();
    await a.stop();
    await redis.stop();
  }
}

interface Analysis {
  admitted: number;
  admittedUsers: Set<string>;
  holdsWithoutTurn: number;
  maxActive: number;
  turnRecords: number;
  doubleHeld: number;
  killGapMs: number;
  activeAtKill: number;
  longestStallMs: number;
  longestRoomStallMs: number;
  paceWindows: string;
}

/** Walks the event's records on the topic in order (duplicates dropped by id). */
function analyse(
  probe: TopicProbe,
  eventId: string,
  startMs: number,
  endMs: number,
  killedAt: number,
): Analysis {
  const seen = new Set<string>();
  const records = probe
    .values()
    .filter((v) => v.data?.eventId === eventId && !seen.has(v.id) && seen.add(v.id));
  const active = new Map<string, number>(); // user -> pass expiry
  const liveSeat = new Map<string, string>(); // seat -> hold
  const holdSeats = new Map<string, string[]>();
  const booked = new Set<string>();
  const out: Analysis = {
    admitted: 0,
    admittedUsers: new Set(),
    holdsWithoutTurn: 0,
    maxActive: 0,
    turnRecords: 0,
    doubleHeld: 0,
    killGapMs: Infinity,
    activeAtKill: 0,
    longestStallMs: 0,
    longestRoomStallMs: 0,
    paceWindows: '',
  };
  const admissions: { t: number; free: number; active: number }[] = [];
  let activeNow = 0;
  for (const v of records) {
    const t = Date.parse(v.time);
    const d = v.data;
    switch (v.type) {
      case 'ShopperAdmitted':
        out.admitted++;
        out.admittedUsers.add(d.userId);
        active.set(d.userId, Date.parse(d.passExpiresAt));
        admissions.push({ t, free: SEATS - liveSeat.size - booked.size, active: d.activeShoppers });
        break;
      case 'ShopperFinished':
      case 'AdmissionExpired':
        active.delete(d.userId);
        break;
      case 'HoldCreated': {
        const pass = active.get(d.userId);
        if (pass === undefined || pass < t) {
          out.holdsWithoutTurn++;
        }
        for (const s of d.seatIds as string[]) {
          if (liveSeat.has(s) || booked.has(s)) {
            out.doubleHeld++;
          }
          liveSeat.set(s, d.holdId);
        }
        holdSeats.set(d.holdId, d.seatIds);
        break;
      }
      case 'HoldReleased':
        for (const s of d.seatIds as string[]) {
          if (liveSeat.get(s) === d.holdId) {
            liveSeat.delete(s);
          }
        }
        break;
      case 'HoldConfirmed':
        for (const s of d.seatIds as string[]) {
          liveSeat.delete(s);
          booked.add(s);
        }
        break;
      case 'SeatExpired':
        if (liveSeat.get(d.seatId) === d.holdId) {
          liveSeat.delete(d.seatId);
        }
        break;
    }
    if (typeof d.activeShoppers === 'number') {
      out.turnRecords++;
      activeNow = d.activeShoppers;
      out.maxActive = Math.max(out.maxActive, d.activeShoppers);
    }
    if (killedAt && t <= killedAt) {
      out.activeAtKill = activeNow;
    }
  }
  // the stall bound: between admissions in the sale, a gap whose start had free seats (people waited all along)
  let prev = startMs;
  let prevFree = SEATS;
  let prevActive = 0;
  for (const x of admissions) {
    if (x.t > endMs) {
      break;
    }
    if (prevFree > 0) {
      out.longestStallMs = Math.max(out.longestStallMs, x.t - prev);
      if (prevActive < CAP) {
        out.longestRoomStallMs = Math.max(out.longestRoomStallMs, x.t - prev);
      }
    }
    prev = x.t;
    prevFree = x.free;
    prevActive = x.active;
    if (killedAt && x.t >= killedAt && out.killGapMs === Infinity) {
      out.killGapMs = x.t - killedAt;
    }
  }
  // pace: 2 s windows in which the cap had room all along (every admission in them below the cap)
  const rates: number[] = [];
  for (let w = startMs; w + 2000 <= Math.min(endMs, admissions.at(-1)?.t ?? startMs); w += 2000) {
    const inW = admissions.filter((x) => x.t >= w && x.t < w + 2000);
    if (inW.length > 0 && inW.every((x) => x.active < CAP)) {
      rates.push((inW.length * 30) / SALE_SCALE);
    }
  }
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(((x - 600) / 600) * 100).toFixed(1)} %`;
  out.paceWindows = rates.length
    ? `${rates.length} windows: median ${quantile(rates, 0.5).toFixed(0)} (${pct(quantile(rates, 0.5))}), lowest ${Math.min(...rates).toFixed(0)}, highest ${Math.max(...rates).toFixed(0)}`
    : 'no window with room under the cap';
  return out;
}
