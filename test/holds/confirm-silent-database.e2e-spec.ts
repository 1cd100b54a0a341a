/**
 * A PostgreSQL that goes silent (a partition, a frozen host: packets dropped, no connection refused or
 * reset) behind a TCP proxy in front of the real server. Confirm must answer 503 BOOKING_UNAVAILABLE with
 * Retry-After while PostgreSQL is still silent: every PostgreSQL call has a client-side deadline. Once the
 * link is back, both stores agree and the client's retry books the hold.
 */
import { confirmHold, expectAgreement, Held, holdSeats } from '@test/support/confirm-agreement';
import { Db, openDb } from '@test/support/db';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { startTcpProxy, TcpProxy } from '@test/support/tcp-proxy';

jest.setTimeout(120_000);

let proxy: TcpProxy;
let api: Api;
let db: Db;
let eventId: string;
let alice: string;
let seat = 0;
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`);

beforeAll(async () => {
  const real = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
  db = await openDb(); // the test's own view of PostgreSQL, not through the proxy
  api = await startApi({
    DATABASE_URL: proxy.urlFor(process.env.DATABASE_URL!),
    CONFIRM_TIMEOUT_MS: '3000',
    SEAT_LOCK_LEASE_MS: '5000',
    SEAT_LOCK_WAIT_MS: '3000',
  });
  eventId = await createEvent(api, 1, 10);
  alice = await api.token('alice');
});
afterEach(() => proxy.thaw());
afterAll(async () => {
  proxy?.thaw();
  await api?.close();
  await db?.close();
  await proxy?.close();
});

/**
 * The confirm's answer, which must come while PostgreSQL is still silent. The bound only keeps a
 * confirm that waits for the link (the defect) from hanging the file: the test thaws the proxy after it.
 */
async function answerWhileSilent(h: Held, orderId: string) {
  const answer = confirmHold(api, h, orderId);
  const silence = new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 40_000).unref());
  const first = await Promise.race([answer, silence]);
  expect(proxy.frozen).toBe(true);
  if (first === 'still waiting') {
    proxy.thaw();
    const late = await answer;
    throw new Error(`confirm answered only once PostgreSQL spoke again: ${late.status}`);
  }
  return first;
}

it('PostgreSQL silent before the confirm: 503 BOOKING_UNAVAILABLE with Retry-After while it is silent; afterwards both stores agree and the retry books it', async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  proxy.freeze();
  const r = await answerWhileSilent(h, 'o-silent');
  expect([r.status, r.body.code]).toEqual([503, 'BOOKING_UNAVAILABLE']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  proxy.thaw();
  const retry = await confirmHold(api, h, 'o-silent');
  expect([200, 201]).toContain(retry.status);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-silent' });
});

it('PostgreSQL silent from the booking INSERT on: 503 BOOKING_UNAVAILABLE with Retry-After while it is silent; nothing is booked; the retry with the same orderId books it', async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  const froze = proxy.freezeOn('INSERT INTO');
  const r = await answerWhileSilent(h, 'o-insert');
  await froze; // it did freeze at the booking's INSERT, not before
  expect([r.status, r.body.code]).toEqual([503, 'BOOKING_UNAVAILABLE']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  proxy.thaw();
  const retry = await confirmHold(api, h, 'o-insert');
  expect([200, 201]).toContain(retry.status);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-insert' });
});

it('once PostgreSQL answers again, an untouched hold confirms at once (the pool dropped the connections that went silent)', async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  const r = await confirmHold(api, h, 'o-after');
  expect(r.status).toBe(201);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-after' });
});
