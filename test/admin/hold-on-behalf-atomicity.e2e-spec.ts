/**
 * A hold made by an agent for a customer and its audit entry commit together or not at all, behind TCP
 * proxies in front of PostgreSQL and Redis that go silent the way a partitioned host does: with
 * PostgreSQL silent at the entry's commit (the commit may land after the 503), PostgreSQL silent once the
 * hold is made (the entry's DONE), and the hold's Redis reply lost. Afterwards the customer's holds, the
 * seat map and the audit agree, and a retry at once ends as one successful call would: one hold, recorded
 * once (the retry refused 409 when the first call had made the hold; the call takes no Idempotency-Key).
 */
import { Db } from '../support/db';
import { eventually } from '../support/eventually';
import { Api } from '../support/seat-api';
import { SilencedStaffStage, startSilencedStaffStage } from '../support/staff-stage';
import { TcpProxy } from '../support/tcp-proxy';

jest.setTimeout(120_000);

let stage: SilencedStaffStage;
let pg: TcpProxy;
let redis: TcpProxy;
let api: Api;
let db: Db;
let eventId: string;
let admin: string;
let agent: string;
let seat = 0;
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`).sort();
let customers = 0;
const nextCustomer = () => `customer-${++customers}`;

beforeAll(async () => {
  stage = await startSilencedStaffStage({ rows: 1, perRow: 20, customers: [] });
  ({ pg, redis, api, db, eventId, admin, agent } = stage);
});
afterEach(() => stage.thaw());
afterAll(() => stage?.close());

const onBehalf = (customerId: string, seatIds: string[]) =>
  api.call('POST', `/v1/events/${eventId}/holds/on-behalf`, { token: agent, body: { customerId, seatIds } });

/** The customer's audit entries as PostgreSQL stores them (also PENDING ones): `<holdId> <status>`. */
const stored = async (customerId: string) =>
  (
    await db.rows<{ target: string; status: string }>(
      `SELECT target, status FROM audit_entries
       WHERE event_id = $1 AND action = 'HOLD_ON_BEHALF' AND detail->>'customerId' = $2 ORDER BY created_at`,
      [eventId, customerId],
    )
  ).map((e) => `${e.target} ${e.status}`);

/** The customer's holds as staff list them and the customer reads them, the seats' map, and the audit. */
async function seen(customerId: string, seats: string[]) {
  const audit = await api.call('GET', `/v1/events/${eventId}/audit?limit=1000`, { token: admin });
  expect(audit.status).toBe(200);
  const listed = await api.call('GET', `/v1/events/${eventId}/holds?userId=${customerId}`, { token: agent });
  expect(listed.status).toBe(200);
  const customer = await api.token(customerId);
  const holds: string[] = [];
  for (const h of listed.body.items as { holdId: string }[]) {
    const own = await api.call('GET', `/v1/holds/${h.holdId}`, { token: customer });
    holds.push(
      `${own.status} ${own.body.userId} ${own.body.status} ${(own.body.seatIds as string[]).join()}`,
    );
  }
  const map = await api.call('GET', `/v1/events/${eventId}/seats`);
  const status = new Map<string, string>(
    (map.body.seats as { seatId: string; status: string }[]).map((s) => [s.seatId, s.status]),
  );
  return {
    holdIds: (listed.body.items as { holdId: string }[]).map((h) => h.holdId),
    holds,
    map: seats.map((s) => status.get(s)),
    audited: (audit.body.items as { action: string; target: string; detail: { customerId: string } }[])
      .filter((e) => e.action === 'HOLD_ON_BEHALF' && e.detail.customerId === customerId)
      .map((e) => e.target),
    stored: await stored(customerId),
  };
}

/**
 * One more call is refused, the seats being held; once every entry is decided, the customer has one
 * hold of the seats, which the seat map shows held and the audit records once.
 */
async function expectHeldOnce(customerId: string, seats: string[]) {
  const again = await onBehalf(customerId, seats);
  expect([again.status, again.body.code, again.body.errors]).toEqual([
    409,
    'SEATS_UNAVAILABLE',
    seats.map((seatId) => ({ seatId, reason: 'HELD' })),
  ]);
  let last: Awaited<ReturnType<typeof seen>> | undefined;
  await eventually(
    async () => {
      last = await seen(customerId, seats);
      return !last.stored.some((e) => e.endsWith('PENDING'));
    },
    15_000,
    'every entry decided',
  );
  const [holdId] = last!.holdIds;
  expect(last).toEqual({
    holdIds: [holdId],
    holds: [`200 ${customerId} ACTIVE ${seats.join()}`],
    map: seats.map(() => 'HELD'),
    audited: [holdId],
    stored: [`${holdId} DONE`],
  });
}

it('PostgreSQL silent at the entry commit: 503 AUDIT_UNAVAILABLE, and a retry at once holds the seats once', async () => {
  const customer = nextCustomer();
  const seats = nextSeats(2);
  const froze = stage.freezeAtEntryCommit();
  const answer = onBehalf(customer, seats);
  await froze;
  const r = await answer;
  expect([r.status, r.body.code]).toEqual([503, 'AUDIT_UNAVAILABLE']);
  pg.thaw();
  // the held-back commit lands now: a PENDING entry for a hold Redis never made
  await eventually(
    async () => (await stored(customer)).some((e) => e.endsWith('PENDING')),
    5000,
    'the late commit',
  );
  const retry = await onBehalf(customer, seats);
  expect([retry.status, retry.body.userId]).toEqual([201, customer]);
  await expectHeldOnce(customer, seats);
});

it('PostgreSQL silent once the hold is made: 201, recorded once PostgreSQL answers; a retry is refused', async () => {
  const customer = nextCustomer();
  const seats = nextSeats(2);
  const froze = pg.freezeOn('UPDATE audit_entries');
  const r = await onBehalf(customer, seats);
  await froze;
  expect([r.status, r.body.userId]).toEqual([201, customer]);
  expect(await stored(customer)).toEqual([`${r.body.holdId} PENDING`]);
  pg.thaw();
  await expectHeldOnce(customer, seats);
});

it("the hold's Redis reply lost: 503, the hold is made all the same and recorded; a retry at once is refused", async () => {
  const customer = nextCustomer();
  const seats = nextSeats(2);
  const froze = redis.freezeOn('holdCreate');
  const answer = onBehalf(customer, seats);
  await froze;
  const r = await answer; // the request gave up on the reply, and could not ask Redis what became of it
  expect(r.status).toBe(503);
  expect((await stored(customer)).map((e) => e.split(' ')[1])).toEqual(['PENDING']);
  redis.thaw(); // the hold is delivered now, after the request gave up on it
  await expectHeldOnce(customer, seats);
});
