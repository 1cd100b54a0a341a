/**
 * The demo seed is opt-in and never leaks an admin credential. With SEED_DEMO_EVENT=false (which used to
 * read as true) nothing is seeded and nothing is printed; with true, the token printed for trying the API
 * is a plain user's: a log line must never grant admin. The demo hall has a price list, and a standing area
 * priced by its category.
 */
import { decodeJwt } from 'jose';
import { DEMO_EVENT_ID } from '../../apps/seat-api/src/catalogue/demo-seed.service';
import { REDIS_CLIENT } from '@app/redis';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { retainUntil } from '@test/support/hold-store';
import { Db, openDb } from '@test/support/db';
import { Api, startApi } from '@test/support/seat-api';

const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

let db: Db;
let api: Api | undefined;

beforeAll(async () => {
  db = await openDb();
});
afterEach(async () => {
  await api?.close();
  api = undefined;
});
afterAll(async () => {
  await db?.close();
});

/** Starts the API with `env`, returning everything it wrote to stdout and stderr while booting. */
async function bootCapturingLogs(env: Record<string, string>): Promise<string> {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      return true;
    }),
  );
  try {
    api = await startApi({ LOG_LEVEL: 'log', ...env });
  } finally {
    spies.forEach((s) => s.mockRestore());
  }
  return chunks.join('');
}

it('seeds nothing and logs no token with SEED_DEMO_EVENT=false', async () => {
  const logs = await bootCapturingLogs({ SEED_DEMO_EVENT: 'false' });
  // the capture works: the boot's own 'log' lines are there
  expect(logs).toMatch(/successfully started/);
  // and SWEEPER_ENABLED=false, which every e2e test gets from startApi, really turns the sweeper off
  expect(logs).toContain('sweeper disabled');
  expect(logs.match(JWT)).toBeNull();
  expect(logs).not.toContain(DEMO_EVENT_ID);
  expect(await db.count('events', 'id = $1', [DEMO_EVENT_ID])).toBe(0);
  expect(await retainUntil(api!.app.get(REDIS_CLIENT), api!.app.get(HoldStore), DEMO_EVENT_ID)).toBeNull();
});

it.each(['0', 'no', 'OFF'])('seeds nothing with SEED_DEMO_EVENT=%s either', async (value) => {
  const logs = await bootCapturingLogs({ SEED_DEMO_EVENT: value });
  expect(logs.match(JWT)).toBeNull();
  expect(await db.count('events', 'id = $1', [DEMO_EVENT_ID])).toBe(0);
});

it('prints one token with SEED_DEMO_EVENT=true, a user token that cannot act as admin', async () => {
  const logs = await bootCapturingLogs({ SEED_DEMO_EVENT: 'true' });
  expect(await db.count('events', 'id = $1', [DEMO_EVENT_ID])).toBe(1);
  const tokens = [...new Set(logs.match(JWT))];
  expect(tokens).toHaveLength(1);
  const [token] = tokens;
  const claims = decodeJwt(token);
  expect(claims.roles ?? []).not.toContain('admin');
  expect(claims.exp).toEqual(expect.any(Number));
  // what the printed curl lines do works with it ...
  const seats = await api!.call('GET', `/v1/events/${DEMO_EVENT_ID}/seats`, { token });
  expect(seats.status).toBe(200);
  const held = await api!.call('POST', `/v1/events/${DEMO_EVENT_ID}/holds`, {
    token,
    body: { seatIds: ['HALL-A-1'] },
  });
  expect(held.status).toBe(201);
  // the demo hall is priced: its holds carry their lines and total
  expect(held.body).toMatchObject({ priceListVersion: 1, currency: 'EUR', total: 6500 });
  // a standing area in front of the hall, live on the seat map, with a price for its category
  const event = await api!.call('GET', `/v1/events/${DEMO_EVENT_ID}`, { token });
  expect(event.body.sections.map((s: { name: string }) => s.name)).toEqual(['FLOOR', 'HALL']);
  expect(event.body.areas).toEqual([
    { name: 'FLOOR', category: 'standing', capacity: 300, free: 300, held: 0, booked: 0, blocked: 0 },
  ]);
  expect(seats.body.areas).toEqual(event.body.areas);
  const prices = await api!.call('GET', `/v1/events/${DEMO_EVENT_ID}/prices`);
  expect(prices.body.categories).toContainEqual(
    expect.objectContaining({ category: 'standing', minPrice: 3000, maxPrice: 3000 }),
  );
  const places = await api!.call('POST', `/v1/events/${DEMO_EVENT_ID}/holds`, {
    token,
    body: { places: [{ area: 'FLOOR', quantity: 2 }] },
  });
  expect(places.status).toBe(201);
  expect(places.body).toMatchObject({ places: [{ area: 'FLOOR', quantity: 2 }], total: 6000 });
  // ... and nothing an admin may do
  const create = await api!.call('POST', '/v1/events', {
    token,
    body: {
      name: 'x',
      startsAt: '2030-01-01T00:00:00Z',
      sections: [{ name: 'S', category: 'c', rows: [{ row: 'A', seats: 1 }] }],
    },
  });
  expect(create.status).toBe(403);
  expect((await api!.call('GET', `/v1/events/${DEMO_EVENT_ID}/expirations`, { token })).status).toBe(403);
});
