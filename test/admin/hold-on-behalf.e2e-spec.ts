/**
 * Box-office staff hold seats for a customer, against the real services: the hold is the customer's (they
 * read, confirm it with their own token, their limits apply), the agent is the actor in the event's audit,
 * and the hold and its entry commit together (create-hold.lua marks the action applied in the staff ledger
 * in the same step). Refusals (403 by role, 400, 404, 409) hold nothing and record nothing; racing a
 * customer's hold on the same seats, exactly one of the two holds them.
 */
import { confirmHold, expectAgreement, holdSeats } from '../support/confirm-agreement';
import { Db } from '../support/db';
import { Api } from '../support/seat-api';
import { startStaffStage } from '../support/staff-stage';

jest.setTimeout(60_000);

let api: Api;
let db: Db;
let eventId: string;
let admin: string;
let agent: string;
let carol: string;
let dave: string;
let seat = 0;
/** Seats not used before: rows A, B, C of 30 seats, in turn. */
const nextSeats = (n: number) =>
  Array.from({ length: n }, () => {
    const i = seat++;
    return `S-${'ABC'[Math.floor(i / 30)]}-${(i % 30) + 1}`;
  });

beforeAll(async () => {
  ({
    api,
    db,
    eventId,
    admin,
    agent,
    customers: [carol, dave],
  } = await startStaffStage({
    env: { RATE_LIMIT_ENABLED: 'false' },
    rows: 3,
    perRow: 30,
    customers: ['carol', 'dave'],
  }));
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const onBehalf = (body: unknown, token = agent, event = eventId) =>
  api.call('POST', `/v1/events/${event}/holds/on-behalf`, { token, body });
const audited = () =>
  db.rows<{ actor: string; action: string; target: string; detail: unknown; status: string }>(
    `SELECT actor, action, target, detail, status FROM audit_entries WHERE event_id = $1 ORDER BY created_at`,
    [eventId],
  );

it("holds for the customer: the hold is theirs to read and confirm, the agent is the audit's actor", async () => {
  const seats = nextSeats(2);
  const r = await onBehalf({ customerId: 'carol', seatIds: [seats[1], seats[0]], ttlSeconds: 120 });
  expect([r.status, r.body.userId, r.body.status, r.body.seatIds]).toEqual([201, 'carol', 'ACTIVE', seats]);
  const h = { holdId: r.body.holdId as string, eventId, seatIds: seats, token: carol };

  const own = await api.call('GET', `/v1/holds/${h.holdId}`, { token: carol });
  expect([own.status, own.body.userId]).toEqual([200, 'carol']);
  const other = await api.call('GET', `/v1/holds/${h.holdId}`, { token: dave });
  expect([other.status, other.body.code]).toEqual([404, 'HOLD_NOT_FOUND']);
  const entries = await audited();
  expect(entries.filter((e) => e.target === h.holdId)).toEqual([
    {
      actor: 'agent-1',
      action: 'HOLD_ON_BEHALF',
      target: h.holdId,
      detail: { customerId: 'carol', seatIds: seats },
      status: 'DONE',
    },
  ]);
  const page = await api.call('GET', `/v1/events/${eventId}/audit?limit=1000`, { token: admin });
  expect(page.body.items.map((e: { target: string }) => e.target)).toContain(h.holdId);

  const confirmed = await confirmHold(api, h, 'o-carol-1');
  expect(confirmed.status).toBe(201);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-carol-1' });

  // an admin may do it too
  const byAdmin = await onBehalf({ customerId: 'carol', seatIds: nextSeats(1) }, admin);
  expect([byAdmin.status, byAdmin.body.userId]).toEqual([201, 'carol']);
});

it('refuses, holding and recording nothing: 403 for a customer, 400 bad input, 404 unknown event or seat, 409 taken seats, 422 over the customer cap', async () => {
  const taken = await holdSeats(api, dave, eventId, nextSeats(1));
  const free = nextSeats(1);
  // erin holds 8 of her 10 seats (HOLD_MAX_SEATS_PER_USER): an agent cannot hold 3 more for her
  expect((await onBehalf({ customerId: 'erin', seatIds: nextSeats(8) })).status).toBe(201);
  const before = (await audited()).length;
  const refusals: [unknown, string, number, string, string?][] = [
    [{ customerId: 'carol', seatIds: free }, carol, 403, 'FORBIDDEN'],
    [{ seatIds: free }, agent, 400, 'VALIDATION_FAILED'],
    [{ customerId: 'a b', seatIds: free }, agent, 400, 'VALIDATION_FAILED'],
    [{ customerId: 'x'.repeat(129), seatIds: free }, agent, 400, 'VALIDATION_FAILED'],
    [{ customerId: 'carol' }, agent, 400, 'VALIDATION_FAILED'],
    [{ customerId: 'carol', seatIds: free, ttlSeconds: 0 }, agent, 400, 'VALIDATION_FAILED'],
    [{ customerId: 'carol', seatIds: free, other: 1 }, agent, 400, 'VALIDATION_FAILED'],
    [{ customerId: 'carol', seatIds: free }, agent, 404, 'EVENT_NOT_FOUND', crypto.randomUUID()],
    [{ customerId: 'carol', seatIds: ['NOPE-1'] }, agent, 404, 'SEAT_NOT_FOUND'],
    [{ customerId: 'carol', seatIds: [...free, ...taken.seatIds] }, agent, 409, 'SEATS_UNAVAILABLE'],
  ];
  for (const [body, token, status, code, event] of refusals) {
    const r = await onBehalf(body, token, event);
    expect([r.status, r.body.code]).toEqual([status, code]);
  }
  const many = await onBehalf({ customerId: 'erin', seatIds: nextSeats(3) });
  expect([many.status, many.body.code]).toEqual([422, 'HOLD_LIMIT_EXCEEDED']);
  expect((await audited()).length).toBe(before);
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token: carol });
  expect(map.body.seats.find((s: { seatId: string }) => s.seatId === free[0]).status).toBe('AVAILABLE');
});

it("racing a customer's hold on the same seats: exactly one holds them, and the audit records only an agent's win", async () => {
  for (let i = 0; i < 8; i++) {
    const seats = nextSeats(2);
    const before = (await audited()).length;
    // customers of their own each round: neither reaches a per-user cap
    const [customer, rival] = [`carol-${i}`, await api.token(`dave-${i}`)];
    const [staff, own] = await Promise.all([
      onBehalf({ customerId: customer, seatIds: seats }),
      api.call('POST', `/v1/events/${eventId}/holds`, { token: rival, body: { seatIds: seats } }),
    ]);
    const wins = [staff, own].filter((r) => r.status === 201);
    expect(wins).toHaveLength(1);
    for (const lost of [staff, own].filter((r) => r.status !== 201)) {
      expect([lost.status, lost.body.code]).toEqual([409, 'SEATS_UNAVAILABLE']);
    }
    const winner = wins[0].body;
    expect(winner.userId).toBe(staff.status === 201 ? customer : `dave-${i}`);
    const after = await audited();
    expect(after.length - before).toBe(staff.status === 201 ? 1 : 0);
    if (staff.status === 201) {
      expect(after.at(-1)).toMatchObject({ target: winner.holdId, status: 'DONE' });
    }
    const token = staff.status === 201 ? await api.token(customer) : rival;
    const h = { holdId: winner.holdId, eventId, seatIds: seats, token };
    await expectAgreement(api, db, h, { status: 'ACTIVE' });
  }
  expect(await db.count('audit_entries', "status = 'PENDING'")).toBe(0);
});
