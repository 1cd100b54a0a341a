/**
 * A typed wrapper over the part of autocannon the benchmarks use (the package ships no types).
 * Each request is built by `next()`, so every request can carry its own seats and user.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: unknown) => Promise<RawResult>;

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  p99_9: number;
  mean: number;
}

interface RawResult {
  latency: Histogram;
  requests: { total: number; average: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}

export interface LoadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  /** requests per second over all connections; omitted = as fast as the server answers */
  rate?: number;
  next: () => LoadRequest;
  /** sees every answer (status and body), e.g. to count the seats granted */
  onResponse?: (status: number, body: string) => void;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** answers per status code, e.g. { 201: 9000, 409: 12 } */
  statuses: Record<number, number>;
  errors: number;
  latencyMs: { p50: number; p99: number; p999: number };
}

export async function load(o: LoadOptions): Promise<LoadResult> {
  const raw = await autocannon({
    url: o.url,
    connections: o.connections,
    duration: o.durationSeconds,
    overallRate: o.rate,
    pipelining: 1,
    requests: [
      {
        setupRequest: (req: object) => ({ ...req, ...o.next() }),
        onResponse: o.onResponse ? (status: number, body: string) => o.onResponse!(status, body) : undefined,
      },
    ],
  });
  const statuses: Record<number, number> = {};
  for (const [code, { count }] of Object.entries(raw.statusCodeStats ?? {})) {
    statuses[Number(code)] = Number(count);
  }
  const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    requests,
    seconds: raw.duration,
    statuses,
    errors: raw.errors + raw.timeouts,
    latencyMs: { p50: raw.latency.p50, p99: raw.latency.p99, p999: raw.latency.p99_9 },
  };
}

/** Share of answers with this status, in percent. */
export function share(r: LoadResult, status: number): number {
  return r.requests === 0 ? 0 : (100 * (r.statuses[status] ?? 0)) / r.requests;
}
