/**
 * What bench:queue's parts share: bearer tokens signed without awaiting (a join load needs a new user per
 * request), staff calls, an event's queue set up over the API, and a bounded HTTP client for the simulated
 * shoppers (thousands of them, each with a timer, must not open thousands of sockets at once).
 */
import { createHmac } from 'node:crypto';
import { BENCH_SECRET, BenchService, signBenchToken } from '../support/service';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const HEADER = b64({ alg: 'HS256' });

/** A token for `sub` (no roles), as signBenchToken signs it, without a promise. */
export function tokenOf(sub: string): string {
  const payload = b64({ roles: [], sub, exp: Math.floor(Date.now() / 1000) + 7200 });
  const sig = createHmac('sha256', BENCH_SECRET).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${sig}`;
}

export async function adminCall(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const token = await signBenchToken('bench-admin', ['admin']);
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) {
    throw new Error(`${method} ${path}: ${res.status} ${text}`);
  }
  return text ? JSON.parse(text) : undefined;
}

export interface QueueSetUp {
  opensInMs: number;
  /** from opening to the sales start */
  prequeueMs: number;
  order?: 'fifo' | 'shuffle-then-fifo';
  admitPerMinute: number;
  maxActiveShoppers: number;
  passTtlSeconds?: number;
  idleEntryTtlSeconds?: number;
}

/** Puts a queue in front of the event; resolves once it is open (its opensAt passed). Times: epoch ms. */
export async function setUpQueue(
  service: BenchService,
  eventId: string,
  o: QueueSetUp,
): Promise<{ opensAtMs: number; salesStartAtMs: number }> {
  const opensAtMs = Date.now() + o.opensInMs;
  const salesStartAtMs = opensAtMs + o.prequeueMs;
  await adminCall(service.base, 'PUT', `/v1/events/${eventId}/queue`, {
    opensAt: new Date(opensAtMs).toISOString(),
    salesStartAt: new Date(salesStartAtMs).toISOString(),
    order: o.order ?? 'shuffle-then-fifo',
    admitPerMinute: o.admitPerMinute,
    maxActiveShoppers: o.maxActiveShoppers,
    passTtlSeconds: o.passTtlSeconds ?? 3600,
    idleEntryTtlSeconds: o.idleEntryTtlSeconds ?? 3600,
  });
  await untilTime(opensAtMs + 50);
  return { opensAtMs, salesStartAtMs };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function untilTime(ms: number): Promise<void> {
  while (Date.now() < ms) {
    await sleep(Math.min(200, ms - Date.now()));
  }
}

export interface Answer {
  status: number;
  body: any;
}

/**
 * At most `limit` requests in flight at once (the rest wait their turn), as a browser population behind a
 * load balancer's connection pool would; a request that cannot reach the instance answers status 0.
 */
export class BoundedClient {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async call(
    base: string,
    method: string,
    path: string,
    token?: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    if (this.inFlight >= this.limit) {
      await new Promise<void>((r) => this.waiting.push(r));
    }
    this.inFlight++;
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    } catch {
      return { status: 0, body: undefined };
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }
}

/** Spearman's rank correlation of two rankings of the same n items (permutations of 0..n-1: no ties). */
export function spearman(a: number[], b: number[]): number {
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) {
    d2 += (a[i] - b[i]) ** 2;
  }
  return 1 - (6 * d2) / (n * (n * n - 1));
}

/** Pairs out of order: i before j in `order` but admitted after (merge sort count, n log n). */
export function inversions(xs: number[]): number {
  const a = [...xs];
  const tmp = new Array<number>(a.length);
  let count = 0;
  const sort = (lo: number, hi: number) => {
    if (hi - lo < 2) {
      return;
    }
    const mid = (lo + hi) >> 1;
    sort(lo, mid);
    sort(mid, hi);
    let i = lo;
    let j = mid;
    let k = lo;
    while (i < mid && j < hi) {
      if (a[i] <= a[j]) {
        tmp[k++] = a[i++];
      } else {
        count += mid - i;
        tmp[k++] = a[j++];
      }
    }
    while (i < mid) {
      tmp[k++] = a[i++];
    }
    while (j < hi) {
      tmp[k++] = a[j++];
    }
    for (let x = lo; x < hi; x++) {
      a[x] = tmp[x];
    }
  };
  sort(0, a.length);
  return count;
}

export const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) {
    return NaN;
  }
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
