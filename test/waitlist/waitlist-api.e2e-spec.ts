/**
 * The waiting list's HTTP side against the real services: join (201 with a place in the queue, first come
 * first served; one open entry per user and show, 409 for a second, also when two joins race), validation
 * at the edge (400 naming the field, 404 for an unknown event), a show that takes no holds refused as a
 * hold is (cancelled, sales closed, ended), entries readable only by their user (404 for anyone else), and
 * leaving (the entry LEFT, the places behind it move up, a second DELETE changes nothing).
 */
import { randomUUID } from 'node:crypto';
import { CatalogueService } from '../../apps/seat-api/src/catalogue/catalogue.service';
import { Db, openDb } from '../support/db';
import { Api, createEvent, startApi } from '../support/seat-api';

jest.setTimeout(60_000);

let api: Api;
let db: Db;
let eventId: string;
const tokens: Record<string, string> = {};
const token = async (user: string) => (tokens[user] ??= await api.token(user));

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  db = await openDb();
  eventId = await createEvent(api, 2, 10);
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const join = async (user: string, body: unknown, event = eventId) =>
  api.call('POST', `/v1/events/${event}/waitlist`, { token: await token(user), body });
const read = async (user: string, entryId: string) =>
  api.call('GET', `/v1/waitlist/${entryId}`, { token: await token(user) });
const leave = async (user: string, entryId: string) =>
  api.call('DELETE', `/v1/waitlist/${entryId}`, { token: await token(user) });

it('gives places first come first served; the entry reads WAITING with its place', async () => {
  const a = await join('wl-ann', { quantity: 2 });
  const b = await join('wl-bob', { quantity: 1, category: 'standard' });
  expect([a.status, a.body.position, b.status, b.body.position]).toEqual([201, 1, 201, 2]);

  const r = await read('wl-bob', b.body.entryId);
  expect([r.status, r.body]).toEqual([
    200,
    { entryId: b.body.entryId, eventId, quantity: 1, category: 'standard', status: 'WAITING', position: 2 },
  ]);
});

it('refuses a second open entry of the same user and show with 409, also when two joins race', async () => {
  const first = await join('wl-cat', { quantity: 1 });
  const again = await join('wl-cat', { quantity: 3 });
  expect([first.status, again.status, again.body.code]).toEqual([201, 409, 'WAITLIST_ENTRY_EXISTS']);

  const raced = await Promise.all(Array.from({ length: 5 }, () => join('wl-dan', { quantity: 1 })));
  expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  expect(await db.count('waitlist_entries', 'event_id = $1 AND user_id = $2', [eventId, 'wl-dan'])).toBe(1);
});

it('validates the body and the ids at the edge and stores nothing for a refusal', async () => {
  const before = await db.count('waitlist_entries');
  const cases: [unknown, string][] = [
    [{ quantity: 0 }, 'quantity'],
    [{ quantity: 11 }, 'quantity'],
    [{ quantity: 1.5 }, 'quantity'],
    [{ quantity: '2' }, 'quantity'],
    [{}, 'quantity'],
    [{ quantity: 1, category: '' }, 'category'],
    [{ quantity: 1, category: 7 }, 'category'],
    [{ quantity: 1, category: 'balcony' }, 'category'], // the event has no such seat
  ];
  for (const [body, field] of cases) {
    const r = await join('wl-eve', body);
    expect([r.status, r.body.code, r.body.errors?.[0]?.field]).toEqual([400, 'VALIDATION_FAILED', field]);
  }
  const unknownEvent = await join('wl-eve', { quantity: 1 }, randomUUID());
  expect([unknownEvent.status, unknownEvent.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
  const badEvent = await join('wl-eve', { quantity: 1 }, 'not-a-uuid');
  expect([badEvent.status, badEvent.body.errors?.[0]?.field]).toEqual([400, 'eventId']);
  const badEntry = await read('wl-eve', 'not-a-uuid');
  expect([badEntry.status, badEntry.body.errors?.[0]?.field]).toEqual([400, 'entryId']);
  const noToken = await api.call('POST', `/v1/events/${eventId}/waitlist`, { body: { quantity: 1 } });
  expect(noToken.status).toBe(401);
  expect(await db.count('waitlist_entries')).toBe(before);
});

it('refuses to join a show that takes no holds with the reason a hold gets (cancelled, sales closed, ended), storing nothing', async () => {
  const admin = await api.token('admin-1', ['admin']);
  const cancelled = await createEvent(api, 1, 4);
  expect((await api.call('POST', `/v1/events/${cancelled}/cancel`, { token: admin })).status).toBe(200);
  const closed = await createEvent(api, 1, 4);
  expect((await api.call('POST', `/v1/events/${closed}/sales/close`, { token: admin })).status).toBe(200);
  // past its start + HOLD_EVENT_RETENTION_SECONDS (two days); the API refuses to create one in the past
  const { eventId: ended } = await api.app.get(CatalogueService).createEvent({
    name: 'Last season',
    startsAt: new Date(Date.now() - 3 * 86_400_000).toISOString(),
    sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4 }] }],
  });
  const before = await db.count('waitlist_entries');

  for (const [event, code] of [
    [cancelled, 'EVENT_CANCELLED'],
    [closed, 'SALES_CLOSED'],
    [ended, 'EVENT_ENDED'],
  ]) {
    const hold = await api.call('POST', `/v1/events/${event}/holds`, {
      token: await token('wl-kim'),
      body: { seatIds: ['S-A-1'] },
    });
    const joined = await join('wl-kim', { quantity: 1 }, event);
    expect([joined.status, joined.body.code]).toEqual([hold.status, hold.body.code]);
    expect([joined.status, joined.body.code]).toEqual([409, code]);
  }
  expect(await db.count('waitlist_entries')).toBe(before);
});

it("answers 404 for another user's entry and for one that does not exist, to read and to leave", async () => {
  const mine = await join('wl-fay', { quantity: 1 });
  for (const r of [
    await read('wl-gus', mine.body.entryId),
    await leave('wl-gus', mine.body.entryId),
    await read('wl-fay', randomUUID()),
  ]) {
    expect([r.status, r.body.code]).toEqual([404, 'WAITLIST_ENTRY_NOT_FOUND']);
  }
  expect((await read('wl-fay', mine.body.entryId)).body.status).toBe('WAITING');
});

it('leaves: the entry is LEFT, the places behind it move up, and the user may join again', async () => {
  const show = await createEvent(api, 1, 4);
  const h = await join('wl-hal', { quantity: 1 }, show);
  const i = await join('wl-ivy', { quantity: 1 }, show);
  expect((await read('wl-ivy', i.body.entryId)).body.position).toBe(2);

  const left = await leave('wl-hal', h.body.entryId);
  expect(left.status).toBe(204);
  const gone = await read('wl-hal', h.body.entryId);
  expect([gone.body.status, gone.body.position]).toEqual(['LEFT', undefined]);
  expect((await read('wl-ivy', i.body.entryId)).body.position).toBe(1);
  expect((await leave('wl-hal', h.body.entryId)).status).toBe(204); // again: nothing changes
  expect((await read('wl-hal', h.body.entryId)).body.status).toBe('LEFT');

  const back = await join('wl-hal', { quantity: 1 }, show);
  expect([back.status, back.body.position]).toEqual([201, 2]);
});

it('declines an open offer on leaving: the offer hold is released', async () => {
  const show = await createEvent(api, 1, 4);
  const j = await join('wl-jon', { quantity: 2 }, show);
  // an offer as apps/waitlist makes it: a hold of the user's, and the entry OFFERED with it
  const hold = await api.call('POST', `/v1/events/${show}/holds`, {
    token: await token('wl-jon'),
    body: { seatIds: ['S-A-1', 'S-A-2'], ttlSeconds: 120 },
  });
  expect(hold.status).toBe(201);
  await db.rows(
    `UPDATE waitlist_entries SET status = 'OFFERED', hold_id = $2, offer_expires_at = $3 WHERE id = $1`,
    [j.body.entryId, hold.body.holdId, hold.body.expiresAt],
  );
  const offered = await read('wl-jon', j.body.entryId);
  expect([offered.body.status, offered.body.holdId, offered.body.offerExpiresAt]).toEqual([
    'OFFERED',
    hold.body.holdId,
    new Date(hold.body.expiresAt).toISOString(),
  ]);

  expect((await leave('wl-jon', j.body.entryId)).status).toBe(204);
  const after = await api.call('GET', `/v1/holds/${hold.body.holdId}`, { token: await token('wl-jon') });
  expect(after.body.status).toBe('RELEASED');
  expect((await read('wl-jon', j.body.entryId)).body.status).toBe('LEFT');
});
