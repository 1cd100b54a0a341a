/**
 * Holds on an event past its start + HOLD_EVENT_RETENTION_SECONDS. From then on the sweeper may
 * delete the event's Redis keys (its BOOKED seats with them) and the boot repair no longer restores them:
 * a hold there would take seats PostgreSQL has booked and re-create keys nothing deletes any more. Such a
 * hold is refused, 409 EVENT_ENDED, and writes nothing. An event past its start but within retention
 * still takes holds (retention is the longest show plus a day).
 */
import type Redis from 'ioredis';
import { REDIS_CLIENT } from '@app/redis';
import { CatalogueService } from '../../apps/seat-api/src/catalogue/catalogue.service';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { Api, startApi } from '@test/support/seat-api';

const DAY_MS = 86_400_000;

let api: Api;
let alice: string;

beforeAll(async () => {
  api = await startApi({ HOLD_EVENT_RETENTION_SECONDS: String(2 * 86_400) });
  alice = await api.token('alice');
});
afterAll(() => api?.close());

/** Made through the catalogue itself: the API refuses an event that starts in the past (400). */
async function eventStartedAgo(ms: number): Promise<string> {
  const { eventId } = await api.app.get(CatalogueService).createEvent({
    name: 'Last season',
    startsAt: new Date(Date.now() - ms).toISOString(),
    sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 3 }] }],
  });
  return eventId;
}

/** The event's hold-store keys that exist in Redis. */
async function keysOf(eventId: string): Promise<string[]> {
  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const keys = Object.values(api.app.get(HoldStore).layout.eventKeys(eventId));
  const exists = await Promise.all(keys.map((k) => redis.exists(k)));
  return keys.filter((_k, i) => exists[i] === 1);
}

it('refuses a hold on an event past start + retention with 409 EVENT_ENDED, writing nothing', async () => {
  const eventId = await eventStartedAgo(3 * DAY_MS);
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
  });
  expect(r.status).toBe(409);
  expect(r.body).toEqual({
    statusCode: 409,
    code: 'EVENT_ENDED',
    message: expect.stringContaining(eventId),
    requestId: expect.any(String),
  });
  expect(await keysOf(eventId)).toEqual([]);
  // the seat map still answers (read-only): every seat available, nothing held
  const map = await api.call('GET', `/v1/events/${eventId}/seats`);
  expect(map.status).toBe(200);
  expect(map.body.counts).toMatchObject({ held: 0 });
});

it('still holds seats of an event that started but is within retention', async () => {
  const eventId = await eventStartedAgo(DAY_MS);
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
  });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ eventId, seatIds: ['S-A-1'], status: 'ACTIVE' });
});
