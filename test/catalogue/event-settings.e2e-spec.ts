/**
 * Per-event settings over real HTTP, on two instances of the API sharing PostgreSQL and Redis: set at
 * creation, changed by an admin (403 for anyone else, 400 for bad input, 404 for an unknown event), in
 * effect for new holds on every instance at once, while existing holds keep the terms they were given.
 */
import { randomUUID } from 'node:crypto';
import { TwoInstances, startTwoInstances } from '@test/support/catalogue-stage';
import { Api, createEvent } from '@test/support/seat-api';

let instances: TwoInstances;
let a: Api; // the instance holds are made on
let b: Api; // the instance the admin changes settings on
let admin: string;
let alice: string;

beforeAll(async () => {
  instances = await startTwoInstances();
  ({ a, b, admin, alice } = instances);
});
afterAll(() => instances?.close());

const hold = (eventId: string, seatIds: string[], token = alice, ttlSeconds?: number) =>
  a.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds, ttlSeconds } });
const patch = (eventId: string, body: unknown, token = admin) =>
  b.call('PATCH', `/v1/events/${eventId}`, { token, body });
const sales = (eventId: string, action: 'open' | 'close', token = admin) =>
  b.call('POST', `/v1/events/${eventId}/sales/${action}`, { token });
const seats = (n: number, row = 'A') => Array.from({ length: n }, (_, i) => `S-${row}-${i + 1}`);

describe('settings at creation', () => {
  it('keeps the limits and sales state an event is created with; the others are the deployment’s', async () => {
    const r = await b.call('POST', '/v1/events', {
      token: admin,
      body: {
        name: 'Box office night',
        startsAt: '2031-01-01T19:00:00Z',
        sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 30 }] }],
        settings: { maxSeatsPerUser: 40, maxSeatsPerHold: 30, sales: 'CLOSED' },
      },
    });
    expect(r.status).toBe(201);
    const read = await a.call('GET', `/v1/events/${r.body.eventId}`, { token: alice });
    expect(read.body.settings).toEqual({
      sales: 'CLOSED',
      defaultHoldTtlSeconds: 300,
      maxHoldTtlSeconds: 900,
      maxSeatsPerHold: 30,
      maxSeatsPerUser: 40,
      maxExtensions: 3,
      maxHoldLifetimeSeconds: 1800,
      ownLimits: ['maxSeatsPerHold', 'maxSeatsPerUser'],
      orphanRule: 'none', // the test environment's EVENT_ORPHAN_RULE (test/setup/per-file-env.ts)
      accessibleSeatsForAll: 'when-others-gone',
    });
    const refused = await hold(r.body.eventId, ['S-A-1']);
    expect([refused.status, refused.body.code]).toEqual([409, 'SALES_CLOSED']);
  });

  it('refuses limits that cannot work together (400, naming them) and creates nothing', async () => {
    const name = `Refused ${randomUUID()}`;
    const r = await b.call('POST', '/v1/events', {
      token: admin,
      body: {
        name,
        startsAt: '2031-01-01T19:00:00Z',
        sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 3 }] }],
        settings: { defaultHoldTtlSeconds: 600, maxHoldTtlSeconds: 120, maxSeatsPerHold: 20 },
      },
    });
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'settings.defaultHoldTtlSeconds',
      'settings.maxSeatsPerHold',
    ]);
    const listed = await b.call('GET', `/v1/events?q=${encodeURIComponent(name)}`, { token: alice });
    expect(listed.body.items).toEqual([]);
  });
});

describe('PATCH /v1/events/{eventId}', () => {
  it('lets one account hold more than the deployment’s 10 seats once the event allows it', async () => {
    const eventId = await createEvent(b, 2, 20);
    const over = await hold(eventId, seats(10));
    expect(over.status).toBe(201);
    const eleventh = await hold(eventId, ['S-B-1']);
    expect([eleventh.status, eleventh.body.code]).toEqual([422, 'HOLD_LIMIT_EXCEEDED']);

    const changed = await patch(eventId, { maxSeatsPerUser: 30, maxSeatsPerHold: 20 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ maxSeatsPerUser: 30, maxSeatsPerHold: 20, sales: 'OPEN' });
    // at once on the other instance, whose copy of the event's settings is older
    const more = await hold(eventId, seats(20, 'B'));
    expect(more.status).toBe(201);

    const back = await patch(eventId, { maxSeatsPerUser: null, maxSeatsPerHold: null });
    expect(back.body).toMatchObject({ maxSeatsPerUser: 10, maxSeatsPerHold: 10, ownLimits: [] });
    const none = await hold(eventId, ['S-A-11'], await a.token('carol'));
    expect(none.status).toBe(201);
    const capped = await hold(eventId, seats(11), await a.token('dave'));
    expect([capped.status, capped.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('applies to new holds only: a hold keeps the extension cap and ttl cap it was made under', async () => {
    const eventId = await createEvent(b, 1, 10);
    expect(
      (await patch(eventId, { maxExtensions: 1, maxHoldTtlSeconds: 120, defaultHoldTtlSeconds: 60 })).status,
    ).toBe(200);
    const old = await hold(eventId, ['S-A-1']);
    expect(old.status).toBe(201);
    // the default ttl of the event: 60 s
    expect(Date.parse(old.body.expiresAt) - Date.parse(old.body.createdAt)).toBe(60_000);

    expect((await patch(eventId, { maxExtensions: 5, maxHoldTtlSeconds: 600 })).status).toBe(200);
    const extend = (holdId: string, ttlSeconds: number) =>
      a.call('POST', `/v1/holds/${holdId}/extend`, { token: alice, body: { ttlSeconds } });
    // its own ttl cap: 120 s, not the event's 600 s now
    const tooLong = await extend(old.body.holdId, 300);
    expect([tooLong.status, tooLong.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    // the bounds as numbers, for a client to retry within them
    expect(tooLong.body.errors).toEqual([
      { field: 'ttlSeconds', message: 'must be between 30 and 120', min: 30, max: 120 },
    ]);
    expect((await extend(old.body.holdId, 120)).status).toBe(200);
    // its own extension cap: 1, not the event's 5 now
    const second = await extend(old.body.holdId, 120);
    expect([second.status, second.body.code]).toEqual([422, 'EXTENSION_LIMIT_REACHED']);
    expect(second.body.message).toContain('at most 1 times');

    const overCap = await hold(eventId, ['S-A-2'], await a.token('erin'), 900);
    expect([overCap.status, overCap.body.errors]).toEqual([
      400,
      [{ field: 'ttlSeconds', message: 'must be between 30 and 600', min: 30, max: 600 }],
    ]);
    const fresh = await hold(eventId, ['S-A-2'], await a.token('erin'), 600);
    expect(fresh.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const r = await a.call('POST', `/v1/holds/${fresh.body.holdId}/extend`, {
        token: await a.token('erin'),
        body: { ttlSeconds: 600 },
      });
      expect(r.status).toBe(200);
    }
  });

  it('needs the admin role (403), refuses bad input (400) and unknown events (404)', async () => {
    const eventId = await createEvent(b, 1, 5);
    const user = await patch(eventId, { maxSeatsPerUser: 20 }, alice);
    expect([user.status, user.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await b.call('PATCH', `/v1/events/${eventId}`, { body: { maxSeatsPerUser: 20 } })).status).toBe(
      401,
    );
    for (const [body, field] of [
      [{}, 'body'],
      [{ maxSeatsPerUser: 0 }, 'maxSeatsPerUser'],
      [{ maxSeatsPerUser: '20' }, 'maxSeatsPerUser'],
      [{ maxExtensions: -1 }, 'maxExtensions'],
      [{ maxHoldTtlSeconds: 86401 }, 'maxHoldTtlSeconds'],
      [{ sales: 'CLOSED' }, 'sales'],
      [{ venue: 'x' }, 'venue'],
      // would leave the event unusable: a default ttl above its maximum
      [{ defaultHoldTtlSeconds: 900, maxHoldTtlSeconds: 600 }, 'defaultHoldTtlSeconds'],
    ] as const) {
      const r = await patch(eventId, body);
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([
        JSON.stringify(body),
        400,
        'VALIDATION_FAILED',
      ]);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    // nothing of a refused change was kept
    const read = await a.call('GET', `/v1/events/${eventId}`, { token: alice });
    expect(read.body.settings.ownLimits).toEqual([]);
    const missing = await patch(randomUUID(), { maxSeatsPerUser: 20 });
    expect([missing.status, missing.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    const badId = await patch('nope', { maxSeatsPerUser: 20 });
    expect([badId.status, badId.body.errors[0].field]).toEqual([400, 'eventId']);
  });
});

describe('closing and opening sales', () => {
  it('refuses new holds on every instance once closed (409 SALES_CLOSED), keeps existing ones, takes holds again once opened', async () => {
    const eventId = await createEvent(b, 1, 10);
    const before = await hold(eventId, ['S-A-1']);
    expect(before.status).toBe(201);

    const closed = await sales(eventId, 'close');
    expect([closed.status, closed.body.sales]).toEqual([200, 'CLOSED']);
    const refused = await hold(eventId, ['S-A-2']);
    expect([refused.status, refused.body.code]).toEqual([409, 'SALES_CLOSED']);
    // the hold made before goes on: extended, then confirmed
    const extended = await a.call('POST', `/v1/holds/${before.body.holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 60 },
    });
    expect(extended.status).toBe(200);
    const confirmed = await a.call('POST', `/v1/holds/${before.body.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'o-closed' },
    });
    expect(confirmed.status).toBe(201);
    // closing again changes nothing
    expect((await sales(eventId, 'close')).status).toBe(200);

    const opened = await sales(eventId, 'open');
    expect([opened.status, opened.body.sales]).toEqual([200, 'OPEN']);
    // instance a last read the event CLOSED: its copy is checked against Redis before it refuses
    expect((await hold(eventId, ['S-A-2'])).status).toBe(201);
  });

  it('needs the admin role (403) and an existing event (404)', async () => {
    const eventId = await createEvent(b, 1, 2);
    const user = await sales(eventId, 'close', alice);
    expect([user.status, user.body.code]).toEqual([403, 'FORBIDDEN']);
    const missing = await sales(randomUUID(), 'close');
    expect([missing.status, missing.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    expect((await hold(eventId, ['S-A-1'])).status).toBe(201);
  });

  it('closing while holds race it: every hold sent after the close answered is refused, and every seat held is a hold that was answered 201', async () => {
    const eventId = await createEvent(b, 10, 20);
    const users = await Promise.all(Array.from({ length: 20 }, (_, i) => a.token(`racer-${i}`)));
    let closeAnswered = false;
    const outcomes: { sentAfterClose: boolean; status: number; code?: string }[] = [];
    // each racer holds seat after seat of its own row until its requests after the close are refused
    const racer = async (u: number) => {
      const row = String.fromCharCode(65 + (u % 10));
      for (let n = 1 + Math.floor(u / 10) * 10, refusedAfter = 0; refusedAfter < 3 && n <= 20; n++) {
        const sentAfterClose = closeAnswered;
        const r = await hold(eventId, [`S-${row}-${n}`], users[u]);
        outcomes.push({ sentAfterClose, status: r.status, code: r.body?.code });
        if (sentAfterClose) {
          refusedAfter++;
        }
      }
    };
    const racing = Promise.all(users.map((_, u) => racer(u)));
    const close = await sales(eventId, 'close');
    closeAnswered = true;
    await racing;
    expect(close.status).toBe(200);
    const after = outcomes.filter((o) => o.sentAfterClose);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((o) => o.status !== 409 || o.code !== 'SALES_CLOSED')).toEqual([]);
    expect(outcomes.filter((o) => o.status !== 201 && o.code !== 'SALES_CLOSED')).toEqual([]);
    const map = await a.call('GET', `/v1/events/${eventId}/seats`, { token: alice });
    expect(map.body.counts.held).toBe(outcomes.filter((o) => o.status === 201).length);
  });
});
