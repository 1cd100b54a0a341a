/**
 * The expiry metrics tell what happened: every seat the sweeper frees is counted in
 * seat_expired_seats_total, as its SeatExpired is counted in seat_expired_published_total once Kafka has it.
 * Real Redis, PostgreSQL and Kafka, the sweeper and relay on their own schedule.
 */
import { eventually } from '@test/support/eventually';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(60_000);

let api: Api;

beforeAll(async () => {
  api = await startApi({
    SWEEPER_ENABLED: 'true',
    HOLD_MIN_TTL_SECONDS: '1',
    SWEEP_INTERVAL_MS: '200',
    OUTBOX_RELAY_INTERVAL_MS: '100',
  });
});
afterAll(async () => {
  await api?.close();
});

/** A counter of this process's /metrics (0 when absent). */
async function metric(name: string): Promise<number> {
  const text = (await api.call('GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

it('seats freed by the sweeper are counted: seat_expired_seats_total grows with seat_expired_published_total', async () => {
  // events in several shards, so that the sweep's shard workers run side by side when the holds fall due
  const events = [await createEvent(api, 1, 5), await createEvent(api, 1, 5), await createEvent(api, 1, 5)];
  const freedBefore = await metric('seat_expired_seats_total');
  const publishedBefore = await metric('seat_expired_published_total');
  for (const [i, eventId] of events.entries()) {
    const token = await api.token(`user-${i}`);
    const res = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token,
      body: { seatIds: ['S-A-1'], ttlSeconds: 1 },
    });
    expect(res.status).toBe(201);
  }
  await eventually(
    async () => (await metric('seat_expired_published_total')) - publishedBefore >= 3,
    20_000,
    'three SeatExpired acknowledged by Kafka',
  );
  expect((await metric('seat_expired_published_total')) - publishedBefore).toBe(3);
  expect((await metric('seat_expired_seats_total')) - freedBefore).toBe(3);
});
