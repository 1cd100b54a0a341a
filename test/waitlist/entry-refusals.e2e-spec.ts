/**
 * One entry the seat API refuses holds back nobody, with apps/waitlist in a child process and the real
 * seat API, PostgreSQL, Redis and Kafka: a customer first in one show's queue who has used up their own hold
 * rate limit (the offer hold answers 429) is passed over for that change, their entry stays WAITING in its
 * place and says why in its read (and in the waiting list's metrics); the seats go to the next entry, and a
 * show on the same partition is offered as if nothing happened. The batch is committed, not retried.
 */
import { eventually } from '../support/eventually';
import { WaitlistHarness } from './harness';
import { WaitlistProcess } from './waitlist-process';

jest.setTimeout(120_000);

// one partition: both shows' changes are read by one consumer, one after the other, in one or two batches
process.env.KAFKA_TOPIC_PARTITIONS = '1';

let h: WaitlistHarness;
let consumer: WaitlistProcess;

beforeAll(async () => {
  h = await WaitlistHarness.start({
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_HOLDS_PER_WINDOW: '3',
    RATE_LIMIT_WINDOW_SECONDS: '3600', // a limited user stays limited for the whole test
  });
  consumer = await h.consumer();
});
afterAll(() => h?.close());

/** A counter of the waiting list's /metrics (0 when absent). */
async function metric(line: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${consumer.port}/metrics`)).text();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.split(' ')[1]) : 0;
}

it("a customer over their own hold rate limit is passed over, with the reason in their entry's read; the next entry and another show on the partition are offered", async () => {
  const limitedShow = await h.soldOut(2);
  const otherShow = await h.soldOut(2);
  const limited = await h.join(limitedShow.eventId, 'wl-busy', 2);
  const next = await h.join(limitedShow.eventId, 'wl-next', 2);
  const other = await h.join(otherShow.eventId, 'wl-other', 2);

  // wl-busy spends their hold requests (on seats the buyer holds: refused, counted all the same)
  const busy = await h.api.token('wl-busy');
  const tries = [];
  for (let i = 0; i < 4; i++) {
    tries.push(
      await h.api.call('POST', `/v1/events/${limitedShow.eventId}/holds`, {
        token: busy,
        body: { seatIds: [limitedShow.seatIds[0]] },
      }),
    );
  }
  expect(tries.map((r) => r.body.code)).toEqual([
    'SEATS_UNAVAILABLE',
    'SEATS_UNAVAILABLE',
    'SEATS_UNAVAILABLE',
    'RATE_LIMITED',
  ]);

  await h.release('buyer', limitedShow);
  await h.release('buyer', otherShow);

  await eventually(
    async () =>
      (await h.entries(otherShow.eventId))[0].status === 'OFFERED' &&
      (await h.entries(limitedShow.eventId))[1].status === 'OFFERED' &&
      (await h.drained()),
    30_000,
    'both shows offered and the batch committed',
  );
  expect((await h.entries(limitedShow.eventId)).map((e) => [e.id, e.status])).toEqual([
    [limited, 'WAITING'],
    [next, 'OFFERED'],
  ]);
  expect((await h.entries(otherShow.eventId)).map((e) => [e.id, e.status])).toEqual([[other, 'OFFERED']]);
  expect((await h.liveHolds(limitedShow.eventId, 'wl-next'))[0].seatIds).toEqual(limitedShow.seatIds);
  expect(await h.liveHolds(limitedShow.eventId, 'wl-busy')).toEqual([]);

  const read = await h.api.call('GET', `/v1/waitlist/${limited}`, { token: busy });
  expect(read.body).toEqual({
    entryId: limited,
    eventId: limitedShow.eventId,
    quantity: 2,
    status: 'WAITING',
    position: 1, // still first in line for the next seats freed
    skipped: { reason: 'RATE_LIMITED', at: expect.any(String) },
  });
  expect(await metric('waitlist_entries_skipped_total{reason="RATE_LIMITED"}')).toBe(1);
});
