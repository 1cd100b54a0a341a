/**
 * Box-office staff on holds, against the real services: agents list an event's holds and read anyone's
 * hold; admins force-release a live hold with a reason, and every release is in the event's audit
 * (admin only) with its actor, action, target, reason and time. Refusals (403 by role, 400, 404, 409)
 * change nothing and record nothing; a force release racing a confirm leaves both stores agreeing.
 */
import { confirmHold, expectAgreement, Held, holdSeats } from '../support/confirm-agreement';
import { Db } from '../support/db';
import { Api } from '../support/seat-api';
import { startStaffStage } from '../support/staff-stage';

jest.setTimeout(60_000);

let api: Api;
let db: Db;
let eventId: string;
let admin: string;
let agent: string;
let alice: string;
let bob: string;
let seat = 0;
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`);

beforeAll(async () => {
  ({
    api,
    db,
    eventId,
    admin,
    agent,
    customers: [alice, bob],
  } = await startStaffStage({
    rows: 3,
    perRow: 30,
    customers: ['alice', 'bob'],
  }));
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const forceRelease = (holdId: string, token: string, body: unknown = { reason: 'customer called' }) =>
  api.call('POST', `/v1/holds/${holdId}/force-release`, { token, body });
const audit = (token = admin, query = '') =>
  api.call('GET', `/v1/events/${eventId}/audit${query}`, { token });
const listHolds = (query: string, token = agent) =>
  api.call('GET', `/v1/events/${eventId}/holds${query}`, { token });

describe('listing an event holds', () => {
  it('pages through every hold, filtered by user and status, for agents and admins only', async () => {
    const mine: Held[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push(await holdSeats(api, alice, eventId, nextSeats(1)));
    }
    const bobs = await holdSeats(api, bob, eventId, nextSeats(2));
    const released = await api.call('DELETE', `/v1/holds/${mine[4].holdId}`, { token: alice });
    expect(released.status).toBe(204);

    // two at a time, following nextCursor: every hold of alice once
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await listHolds(`?userId=alice&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      for (const h of page.body.items) {
        expect(h.userId).toBe('alice');
        seen.push(h.holdId);
      }
      cursor = page.body.nextCursor;
    }
    expect(seen.sort()).toEqual(mine.map((h) => h.holdId).sort());

    const active = await listHolds('?userId=alice&status=ACTIVE');
    expect(active.body.items.map((h: { holdId: string }) => h.holdId).sort()).toEqual(
      mine
        .slice(0, 4)
        .map((h) => h.holdId)
        .sort(),
    );
    const gone = await listHolds('?status=RELEASED', admin);
    expect(gone.body.items.map((h: { holdId: string }) => h.holdId)).toEqual([mine[4].holdId]);
    const all = await listHolds('');
    expect(all.body.items.map((h: { holdId: string }) => h.holdId)).toContain(bobs.holdId);

    for (const token of [alice, bob]) {
      const r = await listHolds('', token);
      expect([r.status, r.body.code]).toEqual([403, 'FORBIDDEN']);
    }
  });

  it('refuses bad paging and filters with 400 naming the field, and an unknown event with 404', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=abc', 'limit'],
      ['?cursor=x', 'cursor'],
      ['?status=CONFIRMING', 'status'],
      ['?userId=a%20b', 'userId'],
      ['?other=1', 'other'],
    ]) {
      const r = await listHolds(query);
      expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(JSON.stringify(r.body.errors)).toContain(field);
    }
    const unknown = await api.call('GET', `/v1/events/${crypto.randomUUID()}/holds`, { token: agent });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    const bad = await api.call('GET', '/v1/events/not-a-uuid/holds', { token: agent });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

it("staff read anyone's hold; another customer still gets 404", async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(1));
  for (const token of [agent, admin]) {
    const r = await api.call('GET', `/v1/holds/${h.holdId}`, { token });
    expect([r.status, r.body.userId, r.body.status]).toEqual([200, 'alice', 'ACTIVE']);
  }
  const other = await api.call('GET', `/v1/holds/${h.holdId}`, { token: bob });
  expect([other.status, other.body.code]).toEqual([404, 'HOLD_NOT_FOUND']);
});

describe('force release', () => {
  it('frees the seats of a live hold, tells its holder, and records who, what, which, why and when', async () => {
    const h = await holdSeats(api, alice, eventId, nextSeats(2));
    const before = await audit();
    const r = await forceRelease(h.holdId, admin, { reason: 'duplicate order' });
    expect([r.status, r.body.holdId, r.body.status]).toEqual([200, h.holdId, 'RELEASED']);
    await expectAgreement(api, db, h, { status: 'RELEASED' });

    const after = await audit();
    expect(after.status).toBe(200);
    expect(after.body.total).toBe(before.body.total + 1);
    const entry = after.body.items.find((e: { target: string }) => e.target === h.holdId);
    expect(entry).toMatchObject({
      actor: 'admin-1',
      action: 'HOLD_FORCE_RELEASE',
      target: h.holdId,
      reason: 'duplicate order',
      detail: { holder: 'alice', seatIds: h.seatIds },
    });
    expect(Date.parse(entry.at)).not.toBeNaN();
    expect(await db.count('audit_entries', "status = 'PENDING'")).toBe(0);

    // nothing left to release: 409, and nothing more recorded
    const again = await forceRelease(h.holdId, admin);
    expect([again.status, again.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
    expect((await audit()).body.total).toBe(after.body.total);
  });

  it('refuses, changing and recording nothing: 403 for agents and customers, 400 without a reason, 404, 409 for a booked hold', async () => {
    const h = await holdSeats(api, alice, eventId, nextSeats(1));
    const booked = await holdSeats(api, bob, eventId, nextSeats(1));
    expect((await confirmHold(api, booked, 'o-booked')).status).toBe(201);
    const total = (await audit()).body.total;

    const refusals: [Promise<{ status: number; body: any }>, number, string][] = [
      [forceRelease(h.holdId, agent), 403, 'FORBIDDEN'],
      [forceRelease(h.holdId, alice), 403, 'FORBIDDEN'],
      [forceRelease(h.holdId, admin, {}), 400, 'VALIDATION_FAILED'],
      [forceRelease(h.holdId, admin, { reason: '   ' }), 400, 'VALIDATION_FAILED'],
      [forceRelease(h.holdId, admin, { reason: 'x'.repeat(501) }), 400, 'VALIDATION_FAILED'],
      [forceRelease(h.holdId, admin, { reason: 'ok', extra: 1 }), 400, 'VALIDATION_FAILED'],
      [forceRelease(`${h.holdId.slice(0, 32)}AAAAAAAAAAA`, admin), 404, 'HOLD_NOT_FOUND'],
      [forceRelease('nonsense', admin), 404, 'HOLD_NOT_FOUND'],
      [forceRelease(booked.holdId, admin), 409, 'HOLD_CONFIRMED'],
    ];
    for (const [call, status, code] of refusals) {
      const r = await call;
      expect([r.status, r.body.code]).toEqual([status, code]);
    }
    await expectAgreement(api, db, h, { status: 'ACTIVE' });
    await expectAgreement(api, db, booked, { status: 'CONFIRMED', orderId: 'o-booked' });
    expect((await audit()).body.total).toBe(total);
    expect(await db.count('audit_entries', "status = 'PENDING'")).toBe(0);
  });

  it('racing a confirm of the same hold: one wins, both stores and the audit agree', async () => {
    for (let i = 0; i < 6; i++) {
      const h = await holdSeats(api, alice, eventId, nextSeats(2));
      const total = (await audit()).body.total;
      const [released, confirmed] = await Promise.all([
        forceRelease(h.holdId, admin, { reason: `race ${i}` }),
        confirmHold(api, h, `o-race-${i}`),
      ]);
      const recorded = (await audit()).body.total - total;
      if (released.status === 200) {
        expect(confirmed.status).toBe(409);
        expect(recorded).toBe(1);
        await expectAgreement(api, db, h, { status: 'RELEASED' });
      } else {
        // the confirm won; the release was refused (booked) or found the seats locked (BUSY)
        expect(confirmed.status).toBe(201);
        expect([409, 503]).toContain(released.status);
        expect(recorded).toBe(0);
        await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: `o-race-${i}` });
      }
    }
    expect(await db.count('audit_entries', "status = 'PENDING'")).toBe(0);
  });
});

describe('the audit', () => {
  it('is for admins only, paged, and 404 for an unknown event', async () => {
    for (const token of [agent, alice]) {
      const r = await audit(token);
      expect([r.status, r.body.code]).toEqual([403, 'FORBIDDEN']);
    }
    // two entries of its own, whatever the tests before recorded
    for (const reason of ['paging 1', 'paging 2']) {
      const h = await holdSeats(api, bob, eventId, nextSeats(1));
      expect((await forceRelease(h.holdId, admin, { reason })).status).toBe(200);
    }
    const all = await audit();
    expect(all.body.total).toBeGreaterThanOrEqual(2);
    const second = await audit(admin, '?limit=1&offset=1');
    expect([second.status, second.body.items]).toEqual([200, [all.body.items[1]]]);
    for (const query of ['?limit=0', '?limit=1001', '?offset=-1', '?offset=x', '?since=1']) {
      const r = await audit(admin, query);
      expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    const unknown = await api.call('GET', `/v1/events/${crypto.randomUUID()}/audit`, { token: admin });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
  });
});
