/**
 * bench:queue's fairness part, on one seat API instance: 10,000 users join an event's queue before its
 * sales start (order shuffle-then-fifo), then 2,000 more one at a time after it, while the first are still
 * being admitted. The admission order is read from the seat.status topic (ShopperAdmitted, in the order the
 * queue's steps wrote them), the join order from the answers: Spearman's rank correlation of the two for the
 * first 10,000 (a fair shuffle: about 0), inversions among the later 2,000 (arrival order: none), and
 * admitted per minute against the pace while people waited.
 */
import { TopicProbe } from '../../test/support/kafka-probe';
import { table } from '../support/report';
import { BenchService } from '../support/service';
import { BoundedClient, inversions, setUpQueue, sleep, spearman, tokenOf, untilTime } from './queue-client';

const BEFORE = 10_000;
const AFTER = 2_000;
const PACE = 30_000;
const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';

export async function fairnessSection(service: BenchService): Promise<string> {
  const probe = await TopicProbe.start(`${service.schema}.seat-status`, BROKERS);
  try {
    const eventId = await service.createEvent(100);
    const client = new BoundedClient(32);
    // time enough for the 10,000 joins before the start (measured below: all must have joined before it)
    const { salesStartAtMs } = await setUpQueue(service, eventId, {
      opensInMs: 1000,
      prequeueMs: 40_000,
      order: 'shuffle-then-fifo',
      admitPerMinute: PACE,
      maxActiveShoppers: 1_000_000,
    });
    const joinOrder = new Map<string, number>();
    let joinedBefore = 0;
    let k = 0;
    const joinedAt = performance.now();
    await Promise.all(
      Array.from({ length: BEFORE }, async (_, i) => {
        const a = await client.call(
          service.base,
          'POST',
          `/v1/events/${eventId}/queue/entries`,
          tokenOf(`early-${i}`),
        );
        if (a.status !== 201) {
          throw new Error(`join: ${a.status} ${JSON.stringify(a.body)}`);
        }
        // one whose join came after the start (a slow machine) is neither an early nor a later joiner here
        if (a.body.status === 'PREQUEUE') {
          joinOrder.set(`early-${i}`, k++);
          joinedBefore++;
        }
      }),
    );
    const joinSeconds = (performance.now() - joinedAt) / 1000;
    await untilTime(salesStartAtMs + 100);
    const late: string[] = [];
    for (let i = 0; i < AFTER; i++) {
      const a = await client.call(
        service.base,
        'POST',
        `/v1/events/${eventId}/queue/entries`,
        tokenOf(`late-${i}`),
      );
      if (a.status !== 201) {
        throw new Error(`join: ${a.status} ${JSON.stringify(a.body)}`);
      }
      late.push(`late-${i}`);
    }
    // every one of them admitted, as the topic tells
    const admitted = () =>
      probe.values().filter((v) => v.type === 'ShopperAdmitted' && v.data.eventId === eventId);
    for (let i = 0; i < 600 && new Set(admitted().map((v) => v.data.userId)).size < BEFORE + AFTER; i++) {
      await sleep(100);
    }
    const seen = new Set<string>();
    const records = admitted().filter((v) => !seen.has(v.id) && seen.add(v.id));
    const admissionOrder = new Map<string, number>();
    records.forEach((v, i) => admissionOrder.set(v.data.userId, i));
    // Spearman over the early joiners: ranks of join order and of admission order among them
    const early = [...joinOrder.keys()].filter((u) => admissionOrder.has(u));
    const byAdmission = [...early].sort((a, b) => admissionOrder.get(a)! - admissionOrder.get(b)!);
    const admissionRank = new Map(byAdmission.map((u, i) => [u, i]));
    const byJoin = [...early].sort((a, b) => joinOrder.get(a)! - joinOrder.get(b)!);
    const rho = spearman(
      byJoin.map((_, i) => i),
      byJoin.map((u) => admissionRank.get(u)!),
    );
    // the topic's order is the queue's: each admission's number is the one after the last
    const outOfNumberOrder = records.filter(
      (v, i) => i > 0 && v.data.number <= records[i - 1].data.number,
    ).length;
    const lateAdmitted = late.filter((u) => admissionOrder.has(u));
    const lateInversions = inversions(lateAdmitted.map((u) => admissionOrder.get(u)!));
    const earlyAfterLate = lateAdmitted.length
      ? early.filter((u) => admissionOrder.get(u)! > admissionOrder.get(lateAdmitted[0])!).length
      : 0;
    // the pace: admissions from the sales start to the last one (people waited all along)
    const times = records.map((v) => Date.parse(v.time as string));
    const minutes = (Math.max(...times) - salesStartAtMs) / 60_000;
    const perMinute = records.length / minutes;
    const paceError = (perMinute - PACE) / PACE;
    // per 2 s window, skipping the last (partial) one
    const windows: number[] = [];
    for (let t = salesStartAtMs; t + 2000 <= Math.max(...times); t += 2000) {
      windows.push((times.filter((x) => x >= t && x < t + 2000).length * 60_000) / 2000);
    }
    const rel = windows.map((w) => (w - PACE) / PACE);
    const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
    return (
      `## Fairness and pace: ${BEFORE.toLocaleString('en-US')} joined before the start, ${AFTER.toLocaleString('en-US')} after (one instance)\n\n` +
      `Order shuffle-then-fifo, pace ${PACE.toLocaleString('en-US')} a minute, no cap in the way. The ${BEFORE.toLocaleString('en-US')} joined ` +
      `in ${joinSeconds.toFixed(1)} s, 32 at a time (join order: the order of their answers); the later ones one at a time after ` +
      `the start, while the first were still being admitted. Admission order: the ShopperAdmitted records on the ` +
      `event's seat.status topic, as the queue's steps wrote them.\n\n` +
      table(
        ['figure', 'value', 'target'],
        [
          [
            'joined before the start (answered PREQUEUE; ρ is over these)',
            `${joinedBefore} of ${BEFORE}`,
            `all: ${joinedBefore === BEFORE ? 'met' : 'not met'}`,
          ],
          [
            'admitted (distinct ShopperAdmitted on the topic)',
            `${records.length} of ${BEFORE + AFTER}`,
            'all',
          ],
          [
            "Spearman's ρ, join order vs admission order, the early joiners (a uniform shuffle: mean 0, standard deviation 1/√(n-1) = 0.010)",
            rho.toFixed(4),
            `\\|ρ\\| < 0.05: ${Math.abs(rho) < 0.05 ? 'met' : 'not met'}`,
          ],
          [
            'inversions among the later joiners (pairs admitted out of join order)',
            `${lateInversions} of ${((lateAdmitted.length * (lateAdmitted.length - 1)) / 2).toLocaleString('en-US')} pairs`,
            `0: ${lateInversions === 0 ? 'met' : 'not met'}`,
          ],
          ['early joiners admitted after the first later joiner', earlyAfterLate, '0'],
          ['admissions on the topic out of number order', outOfNumberOrder, '0'],
          [
            'admitted per minute, sales start to the last admission',
            `${Math.round(perMinute).toLocaleString('en-US')} (${pct(paceError)})`,
            `within ±5 %: ${Math.abs(paceError) <= 0.05 ? 'met' : 'not met'}`,
          ],
          [
            'admitted per minute in each 2 s window: lowest / median / highest',
            `${pct(Math.min(...rel))} / ${pct([...rel].sort((a, b) => a - b)[rel.length >> 1])} / ${pct(Math.max(...rel))}`,
            '',
          ],
        ],
      )
    );
  } finally {
    await probe.stop();
  }
}
