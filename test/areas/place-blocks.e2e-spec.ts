/**
 * Box office takes places of a general-admission area off sale and puts them back, against the real
 * services: the sellable capacity goes down and up, holds never get blocked places, a block of more than
 * is free or an unblock of more than is blocked is refused 409 and changes nothing, each change is in the
 * audit, and PostgreSQL keeps the blocked count the area is repaired from.
 */
import { Db, openDb } from '@test/support/db';
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let admin: string;
let eventId: string;

beforeAll(async () => {
  api = await startApi({});
  db = await openDb();
  admin = await api.token('admin-1', ['admin']);
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Gig',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [{ name: 'FLOOR', category: 'standing', capacity: 10 }],
    },
  });
  expect(r.status).toBe(201);
  eventId = r.body.eventId as string;
});
afterAll(async () => {
  await db?.close();
  await api?.close();
});

const floor = async () =>
  (await api.call('GET', `/v1/events/${eventId}`, { token: admin })).body.areas[0] as Record<string, number>;
const change = (what: 'block' | 'unblock', quantity: number, token = admin) =>
  api.call('POST', `/v1/events/${eventId}/places/${what}`, {
    token,
    body: { area: 'FLOOR', quantity, reason: 'camera platform' },
  });
const blockedInPostgres = async () =>
  (await db.rows<{ blocked: number }>(`SELECT blocked FROM event_areas WHERE event_id = $1`, [eventId]))[0]
    .blocked;

it('blocks lower the sellable capacity, holds never get blocked places, unblocks give them back', async () => {
  const fan = await api.token('fan');
  expect(
    (
      await api.call('POST', `/v1/events/${eventId}/holds`, {
        token: fan,
        body: { places: [{ area: 'FLOOR', quantity: 4 }] },
      })
    ).status,
  ).toBe(201);

  const blocked = await change('block', 5);
  expect(blocked.status).toBe(200);
  expect(blocked.body).toEqual({ eventId, area: 'FLOOR', quantity: 5, status: 'BLOCKED' });
  expect(await floor()).toMatchObject({ capacity: 10, free: 1, held: 4, blocked: 5 });
  expect(await blockedInPostgres()).toBe(5);

  const other = await api.token('other');
  const refused = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: other,
    body: { places: [{ area: 'FLOOR', quantity: 2 }] },
  });
  expect(refused.status).toBe(409);
  expect(refused.body.errors).toEqual([{ area: 'FLOOR', free: 1 }]);

  // more than is free, more than is blocked: refused, nothing changes in either store
  const tooMany = await change('block', 2);
  expect(tooMany.status).toBe(409);
  expect(tooMany.body.code).toBe('SOLD_OUT');
  const tooFew = await change('unblock', 6);
  expect(tooFew.status).toBe(409);
  expect(tooFew.body.code).toBe('PLACES_NOT_BLOCKED');
  expect(await floor()).toMatchObject({ free: 1, blocked: 5 });
  expect(await blockedInPostgres()).toBe(5);

  expect((await change('unblock', 3)).status).toBe(200);
  expect(await floor()).toMatchObject({ free: 4, blocked: 2 });
  expect(await blockedInPostgres()).toBe(2);

  const audit = await api.call('GET', `/v1/events/${eventId}/audit`, { token: admin });
  expect(audit.body.items.map((i: { action: string }) => i.action)).toEqual([
    'PLACES_BLOCK',
    'PLACES_UNBLOCK',
  ]);
  expect(audit.body.items[0]).toMatchObject({ target: 'FLOOR', reason: 'camera platform' });
});

it('refuses an unknown area 404, a bad quantity 400, and anyone but an admin 403', async () => {
  const unknown = await api.call('POST', `/v1/events/${eventId}/places/block`, {
    token: admin,
    body: { area: 'BALCONY', quantity: 1, reason: 'x' },
  });
  expect(unknown.status).toBe(404);
  expect(unknown.body.code).toBe('AREA_NOT_FOUND');
  expect((await change('block', 0)).status).toBe(400);
  expect((await change('block', 1, await api.token('agent', ['agent']))).status).toBe(403);
});
