/**
 * The flash sale of best-available holds over HTTP, side by side with the flash sale of holds naming
 * seats (bench/http/hold-load.ts), on one service (apps/seat-api in a child process, a private Redis):
 * 500 connections on a new 1,000-seat event (10 rows of 100) each, rounds interleaved. Best-available
 * requests ask for 2 seats until the event is sold out (then each is a 409).
 */
import { startPrivateRedis } from '../../test/support/private-redis';
import { flashSale, median, Target } from '../http/hold-load';
import { LoadResult, share } from '../support/load';
import { table } from '../support/report';
import { startService } from '../support/service';

interface SeatMap {
  counts: { total: number; held: number; available: number; booked: number };
  seats: { seatId: string; status: string }[];
}

/** Free seats alone between taken seats, or between a taken seat and the row's end. */
export function orphans(seats: SeatMap['seats']): number {
  const rows = new Map<string, boolean[]>();
  for (const s of seats) {
    const at = s.seatId.lastIndexOf('-');
    const row = rows.get(s.seatId.slice(0, at)) ?? [];
    row[Number(s.seatId.slice(at + 1)) - 1] = s.status === 'AVAILABLE';
    rows.set(s.seatId.slice(0, at), row);
  }
  let n = 0;
  for (const free of rows.values()) {
    for (let i = 0; i < free.length; i++) {
      const alone = free[i] && !free[i - 1] && !free[i + 1];
      // a row of one free seat and nothing taken strands nobody
      n += alone && free.length > 1 ? 1 : 0;
    }
  }
  return n;
}

interface Run {
  result: LoadResult;
  granted: number;
  duplicates: number;
  map: SeatMap;
}

const answersPerSecond = (runs: Run[]) => median(runs.map((r) => r.result.requests / r.result.seconds));

export async function flashSales(seconds: number, rounds: number): Promise<string> {
  const redis = await startPrivateRedis();
  const service = await startService('allocation', redis.url, { SWEEPER_ENABLED: 'false' });
  try {
    const jwt = await Promise.all(Array.from({ length: 500 }, (_, u) => service.token(u)));
    const target: Target = {
      name: 'service',
      base: service.base,
      auth: (u) => ({ authorization: `Bearer ${jwt[u]}` }),
      newEvent: async (seats) => {
        const id = await service.createEvent(seats);
        // warm: the catalogue cached and the free-seat index built, as for an event on sale
        await fetch(`${service.base}/v1/events/${id}/seats`, { headers: target.auth(0) });
        return id;
      },
    };
    const kinds = {
      'best available, 2 seats': () => ({ bestAvailable: { quantity: 2 } }),
      'by seat ids, 1-4 seats': undefined,
    };
    // warm-up (not reported): JIT, connection pools, the library of scripts
    for (const body of Object.values(kinds)) {
      await flashSale(target, 1, body);
    }
    const runs: Record<string, Run[]> = {};
    const rows: (string | number)[][] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const [name, body] of Object.entries(kinds)) {
        const sale = await flashSale(target, seconds, body);
        const map = (await (
          await fetch(`${service.base}/v1/events/${sale.eventId}/seats`, { headers: target.auth(0) })
        ).json()) as SeatMap;
        (runs[name] ??= []).push({ ...sale, map });
        const r = sale.result;
        rows.push([
          `${name} #${round}`,
          r.requests,
          Math.round(r.requests / r.seconds),
          r.statuses[201] ?? 0,
          `${share(r, 503).toFixed(2)} %`,
          r.latencyMs.p99,
          sale.granted,
          sale.duplicates,
          map.counts.available,
          orphans(map.seats),
          Object.entries(r.statuses)
            .map(([s, n]) => `${s}×${n}`)
            .join(' '),
        ]);
      }
    }
    const best = runs['best available, 2 seats'];
    const byIds = runs['by seat ids, 1-4 seats'];
    const busy = best.reduce((a, r) => a + (r.result.statuses[503] ?? 0), 0);
    const answers = best.reduce((a, r) => a + r.result.requests, 0);
    const ratio = answersPerSecond(best) / answersPerSecond(byIds);
    const summary = [
      `best available / by seat ids, median answers/s: ${answersPerSecond(best).toFixed(0)} / ` +
        `${answersPerSecond(byIds).toFixed(0)} = ${ratio.toFixed(2)} (target >= 0.7)`,
      `best available: 503 share ${((100 * busy) / Math.max(1, answers)).toFixed(2)} % (${busy} of ${answers}; target 0 %); ` +
        `seats in two 201 answers ${Math.max(...best.map((r) => r.duplicates))} (target 0); ` +
        `seats left unheld at the end ${Math.max(...best.map((r) => r.map.counts.available))} (target 0: sold out); ` +
        `orphans at sell-out ${Math.max(...best.map((r) => orphans(r.map.seats)))} (worst round)`,
    ].join('\n\n');
    const t = table(
      [
        'flash sale, 500 connections, 1,000 seats',
        'answers',
        'answers/s',
        '201',
        '503 share',
        'p99 ms',
        'seats in 201s',
        'seats in two 201s',
        'seats unheld at the end',
        'orphan seats at the end',
        'statuses',
      ],
      rows,
    );
    return `${t}\n\n${summary}`;
  } finally {
    await service.stop();
    await redis.stop();
  }
}
