/**
 * An admin's change of an event's orphan rule and accessibleSeatsForAll over real HTTP, on two instances
 * sharing PostgreSQL and Redis: the holds of the instance whose copy of the event's settings is older
 * follow the change at once (the rule reaches the hold scripts with the policy version they check), holds
 * made before keep their seats; only the rules' values are taken (400), from an admin (403), for an event
 * that exists (404) and is not cancelled (409).
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

const hold = (eventId: string, body: unknown) =>
  a.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body });
const patch = (eventId: string, body: unknown, token = admin) =>
  b.call('PATCH', `/v1/events/${eventId}`, { token, body });

describe('orphanRule', () => {
  it('a hold that strands a seat is taken under none, refused once no-single-gaps is set, taken again once none is back', async () => {
    // row A of 6 seats; the test environment creates events with orphanRule none (test/setup/per-file-env.ts)
    const eventId = await createEvent(b, 1, 6);
    // under none: S-A-1 left alone is no concern (and instance a keeps the event's settings from here)
    const before = await hold(eventId, { seatIds: ['S-A-2'] });
    expect(before.status).toBe(201);

    const ruled = await patch(eventId, { orphanRule: 'no-single-gaps' });
    expect([ruled.status, ruled.body.orphanRule]).toEqual([200, 'no-single-gaps']);
    // S-A-5 alone would leave S-A-6 alone at the row's end, and 3-4 could take a seat without that
    const refused = await hold(eventId, { seatIds: ['S-A-5'] });
    expect([refused.status, refused.body.code, refused.body.errors]).toEqual([
      409,
      'SEATS_UNAVAILABLE',
      [{ seatId: 'S-A-6', reason: 'ORPHAN_SEAT' }],
    ]);
    const read = await a.call('GET', `/v1/events/${eventId}`, { token: alice });
    expect(read.body.settings.orphanRule).toBe('no-single-gaps');
    // the hold made before keeps its seat
    expect((await a.call('GET', `/v1/holds/${before.body.holdId}`, { token: alice })).body.status).toBe(
      'ACTIVE',
    );

    const back = await patch(eventId, { orphanRule: 'none' });
    expect([back.status, back.body.orphanRule]).toEqual([200, 'none']);
    expect((await hold(eventId, { seatIds: ['S-A-5'] })).status).toBe(201);
  });

  it('an event created with no-single-gaps refuses the hold until an admin sets none', async () => {
    const created = await b.call('POST', '/v1/events', {
      token: admin,
      body: {
        name: 'Ruled',
        startsAt: '2030-01-01T20:00:00Z',
        sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 6 }] }],
        settings: { orphanRule: 'no-single-gaps' },
      },
    });
    expect(created.status).toBe(201);
    const eventId = created.body.eventId as string;
    const refused = await hold(eventId, { seatIds: ['S-A-2', 'S-A-3'] });
    expect([refused.status, refused.body.errors]).toEqual([
      409,
      [{ seatId: 'S-A-1', reason: 'ORPHAN_SEAT' }],
    ]);

    expect((await patch(eventId, { orphanRule: 'none' })).status).toBe(200);
    expect((await hold(eventId, { seatIds: ['S-A-2', 'S-A-3'] })).status).toBe(201);
  });
});

describe('accessibleSeatsForAll', () => {
  it('ordinary best-available requests lose the wheelchair places once never is set, and get them again with when-others-gone', async () => {
    const created = await b.call('POST', '/v1/events', {
      token: admin,
      body: {
        name: 'Access',
        startsAt: '2030-01-01T20:00:00Z',
        // 1 a wheelchair place, 2 its companion seat, 3-4 ordinary
        sections: [
          {
            name: 'S',
            category: 'standard',
            rows: [{ row: 'A', seats: 4, accessible: [1], companion: [2] }],
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const eventId = created.body.eventId as string;
    const pair = () => hold(eventId, { bestAvailable: { quantity: 2 } });
    expect((await pair()).body.seatIds).toEqual(['S-A-3', 'S-A-4']);

    const never = await patch(eventId, { accessibleSeatsForAll: 'never' });
    expect([never.status, never.body.accessibleSeatsForAll]).toEqual([200, 'never']);
    const refused = await pair();
    expect([refused.status, refused.body.errors]).toEqual([
      409,
      [{ reason: 'SOLD_OUT', splitAvailable: false }],
    ]);

    expect((await patch(eventId, { accessibleSeatsForAll: 'when-others-gone' })).status).toBe(200);
    expect((await pair()).body.seatIds).toEqual(['S-A-1', 'S-A-2']);
  });
});

it('takes only the rules’ values (400), from an admin (403), for an existing (404), uncancelled (409) event', async () => {
  const eventId = await createEvent(b, 1, 5);
  for (const [body, field] of [
    [{ orphanRule: 'sometimes' }, 'orphanRule'],
    [{ orphanRule: null }, 'orphanRule'],
    [{ accessibleSeatsForAll: 'always' }, 'accessibleSeatsForAll'],
    [{ accessibleSeatsForAll: true }, 'accessibleSeatsForAll'],
  ] as const) {
    const r = await patch(eventId, body);
    expect([JSON.stringify(body), r.status, r.body.code]).toEqual([
      JSON.stringify(body),
      400,
      'VALIDATION_FAILED',
    ]);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  }
  const user = await patch(eventId, { orphanRule: 'no-single-gaps' }, alice);
  expect([user.status, user.body.code]).toEqual([403, 'FORBIDDEN']);
  const read = await a.call('GET', `/v1/events/${eventId}`, { token: alice });
  expect(read.body.settings).toMatchObject({ orphanRule: 'none', accessibleSeatsForAll: 'when-others-gone' });

  const missing = await patch(randomUUID(), { orphanRule: 'none' });
  expect([missing.status, missing.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
  expect((await b.call('POST', `/v1/events/${eventId}/cancel`, { token: admin })).status).toBe(200);
  const cancelled = await patch(eventId, { accessibleSeatsForAll: 'never' });
  expect([cancelled.status, cancelled.body.code]).toEqual([409, 'EVENT_CANCELLED']);
});
