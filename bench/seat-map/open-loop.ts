/**
 * Open-loop load at a fixed rate: request i is due at start + i / rate whatever happened to earlier ones,
 * and its latency runs from that due time (not from when it was sent), so a service that falls behind
 * shows it in the percentiles instead of being sent less (a closed loop, or autocannon's per-connection
 * rate, waits for answers before sending more and hides the queue).
 *
 * Why not bench/support/load.ts with a rate: autocannon gives each connection `rate / connections`
 * requests per second and sends them back to back at the start of each second, from timers that all start
 * together, so the service gets one burst per second rather than a steady rate; and its latency histogram
 * is "corrected" for coordinated omission with an expected interval of 1 ms (ceil(1 / rate)), which adds
 * made-up samples. Either would measure the load generator.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { LoadRequest } from '../support/load';

export interface OpenLoopResult {
  /** answers received (all of them: the run waits for the last one) */
  requests: number;
  seconds: number;
  rate: number;
  statuses: Record<number, number>;
  errors: number;
  /** from each request's due time to the end of its answer */
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** how late the generator sent requests (due -> written): large values would mean the generator, not the service, fell behind */
  sendLagMs: { p99: number; max: number };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round1 = (x: number) => Math.round(x * 10) / 10;

export async function openLoop(o: {
  url: string;
  rate: number;
  seconds: number;
  next: () => LoadRequest;
}): Promise<OpenLoopResult> {
  // enough sockets that no request waits for one unless ~1,000 are in flight (the service is then lost)
  const agent = new Agent({ keepAlive: true, maxSockets: 1000 });
  const total = Math.round(o.rate * o.seconds);
  const interval = 1000 / o.rate;
  const latencies: number[] = [];
  const lags: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();

  const fire = (due: number) => {
    const r = o.next();
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    pending.push(
      new Promise<void>((resolve) => {
        const req = request(
          `${o.url}${r.path}`,
          {
            agent,
            method: r.method,
            headers: body ? { ...r.headers, 'content-length': String(body.length) } : r.headers,
          },
          (res) => {
            res.resume();
            res.on('end', () => {
              latencies.push(performance.now() - due);
              statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
              resolve();
            });
            res.on('error', () => {
              errors++;
              resolve();
            });
          },
        );
        req.on('error', () => {
          errors++;
          resolve();
        });
        lags.push(performance.now() - due);
        req.end(body);
      }),
    );
  };

  await new Promise<void>((done) => {
    let sent = 0;
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        fire(start + sent * interval);
        sent++;
      }
      if (sent < total) {
        setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
      } else {
        done();
      }
    };
    tick();
  });
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds,
    rate: o.rate,
    statuses,
    errors,
    latencyMs: {
      p50: round1(percentile(latencies, 50)),
      p90: round1(percentile(latencies, 90)),
      p99: round1(percentile(latencies, 99)),
      max: round1(latencies[latencies.length - 1] ?? 0),
    },
    sendLagMs: { p99: round1(percentile(lags, 99)), max: round1(lags[lags.length - 1] ?? 0) },
  };
}
