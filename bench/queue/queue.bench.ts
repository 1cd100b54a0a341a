/**
 * The on-sale queue (docs/queue.md), side by side in one run:
 *   1. one event's queue of BENCH_QUEUE_ENTRIES (1,000,000) entries: Redis bytes per entry (a private
 *      redis-server), Redis CPU and commands per join and per entry read;
 *   2. one seat API instance, interleaved rounds: joins/s, holds/s with the gate off and on (each hold with
 *      its pass), the public status from memory (200, and If-None-Match → 304); CPU and Redis commands the
 *      service sent per answer;
 *   3. fairness: 10,000 joined before the start (shuffle-then-fifo), then 2,000 one by one after it: the rank
 *      correlation of join and admission order, inversions among the later ones, admitted per minute
 *      against the pace, all read from the seat.status topic;
 *   4. a simulated on-sale on two instances, one killed with kill -9 mid-sale (on-sale.ts).
 *
 * Run: npm run bench:queue   (BENCH_ROUNDS 6, BENCH_SECONDS 3 per run, BENCH_QUEUE_ENTRIES 1000000,
 * BENCH_SALE_SCALE 10, BENCH_SALE_SECONDS 240; BENCH_ONLY=memory|costs|fairness|sale prints one part, no report)
 */
import 'reflect-metadata';
import { startPrivateRedis } from '../../test/support/private-redis';
import { writeReport } from '../support/report';
import { startService } from '../support/service';
import { fairnessSection } from './fairness';
import { onSaleSection } from './on-sale';
import { memorySection, throughputSection } from './queue-costs';
import { sizingSection } from './sizing';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ENTRIES = Number(process.env.BENCH_QUEUE_ENTRIES ?? 1_000_000);
const ONLY = process.env.BENCH_ONLY;

async function main(): Promise<void> {
  const sections: string[] = [];
  const memory = !ONLY || ONLY === 'memory' ? await memorySection(ENTRIES) : undefined;
  if (memory) {
    console.log(memory.section);
    sections.push(memory.section);
  }
  let costs: Awaited<ReturnType<typeof throughputSection>> | undefined;
  if (!ONLY || ONLY === 'costs' || ONLY === 'fairness') {
    const redis = await startPrivateRedis();
    // a bench user holds many seats of one event (the per-user limit would refuse the load, not the gate)
    const service = await startService('queue', redis.url, {
      SEAT_LOCK_WAIT_MS: '5000',
      HOLD_MAX_SEATS_PER_USER: '10000',
    });
    try {
      if (!ONLY || ONLY === 'costs') {
        costs = await throughputSection(service, redis.url, ROUNDS, SECONDS);
        console.log(costs.section);
        sections.push(costs.section);
      }
      if (!ONLY || ONLY === 'fairness') {
        const fair = await fairnessSection(service);
        console.log(fair);
        sections.push(fair);
      }
    } finally {
      await service.stop();
      await redis.stop();
    }
  }
  if (!ONLY || ONLY === 'sale') {
    const sale = await onSaleSection();
    console.log(sale.section);
    sections.push(sale.section);
    if (memory && costs) {
      const sizing = sizingSection(memory, costs, sale);
      console.log(sizing);
      sections.push(sizing);
    }
  }
  if (ONLY) {
    return;
  }
  const file = writeReport(
    'queue',
    'On-sale queue: memory, joins, the gate, the status, fairness and a simulated on-sale',
    'npm run bench:queue',
    sections.map((x) => `${x}\n`),
  );
  console.log(`report: ${file}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
