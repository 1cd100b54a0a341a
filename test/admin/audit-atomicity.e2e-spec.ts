/**
 * A staff action and its audit entry commit together or not at all (audit/audited-actions.ts), with
 * PostgreSQL and Redis each failing in turn, behind TCP proxies in front of the real servers that go
 * silent the way a partitioned host does:
 *   - PostgreSQL silent before the entry is written: 503, Redis unchanged, nothing recorded;
 *   - PostgreSQL silent once the change is made: the release stands and is recorded once PostgreSQL is back;
 *   - Redis silent between the entry and the change: 503, and once Redis is back the entry is gone and
 *     the hold is as it was (the action was given up, so the held-back command cannot apply late);
 *   - the release's Redis reply lost: it did happen, and the audit says so;
 *   - PostgreSQL silent at the entry's commit, which lands after the 503: the entry is PENDING while
 *     Redis never saw the action, and is deleted once its time is up.
 * Afterwards a retry ends as one successful release would: released once, recorded once (refused 409
 * when the first call had released the hold).
 */
import { expectAgreement, Held, holdSeats } from '../support/confirm-agreement';
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
let alice: string;
let seat = 0;
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`);

beforeAll(async () => {
  stage = await startSilencedStaffStage({ rows: 1, perRow: 20, customers: ['alice'] });
  ({
    pg,
    redis,
    api,
    db,
    eventId,
    admin,
    customers: [alice],
  } = stage);
});
afterEach(() => stage.thaw());
afterAll(() => stage?.close());

const forceRelease = (h: Held) =>
  api.call('POST', `/v1/holds/${h.holdId}/force-release`, { token: admin, body: { reason: 'test' } });
const entries = (h: Held) =>
  db.rows<{ status: string }>(`SELECT status FROM audit_entries WHERE target = $1`, [h.holdId]);
async function auditedTargets(): Promise<string[]> {
  const r = await api.call('GET', `/v1/events/${eventId}/audit?limit=1000`, { token: admin });
  expect(r.status).toBe(200);
  return r.body.items.map((e: { target: string }) => e.target);
}

/**
 * One more release is refused as done already; once every entry of the hold is decided, the audit
 * records it released once, and every view of the hold says RELEASED.
 */
async function expectReleasedOnce(h: Held) {
  const again = await forceRelease(h);
  expect([again.status, again.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
  await eventually(
    async () =>
      (await auditedTargets()).filter((t) => t === h.holdId).length === 1 &&
      (await entries(h)).map((e) => e.status).join() === 'DONE',
    15_000,
    'one release recorded, nothing left pending',
  );
  await expectAgreement(api, db, h, { status: 'RELEASED' });
}

it('PostgreSQL silent before the entry is written: 503 AUDIT_UNAVAILABLE, the hold untouched, nothing recorded', async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  pg.freeze();
  const r = await forceRelease(h);
  expect([r.status, r.body.code]).toEqual([503, 'AUDIT_UNAVAILABLE']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  pg.thaw();
  // the INSERT held back by the silence may commit now: it is never shown, and a read past its time
  // (Redis never saw the action) deletes it
  await eventually(
    async () => !(await auditedTargets()).includes(h.holdId) && (await entries(h)).length === 0,
    15_000,
    'no entry left',
  );
  await expectAgreement(api, db, h, { status: 'ACTIVE' });
  const retry = await forceRelease(h);
  expect([retry.status, retry.body.status]).toEqual([200, 'RELEASED']);
  await expectReleasedOnce(h);
});

it('PostgreSQL silent at the entry commit: 503 AUDIT_UNAVAILABLE, and a retry at once releases the hold once', async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  const froze = stage.freezeAtEntryCommit();
  const answer = forceRelease(h);
  await froze;
  const r = await answer;
  expect([r.status, r.body.code]).toEqual([503, 'AUDIT_UNAVAILABLE']);
  pg.thaw();
  // the held-back commit lands now: a PENDING entry whose action Redis never saw
  await eventually(
    async () => (await entries(h)).map((e) => e.status).join() === 'PENDING',
    5000,
    'the late commit',
  );
  const retry = await forceRelease(h);
  expect([retry.status, retry.body.status]).toEqual([200, 'RELEASED']);
  await expectReleasedOnce(h);
});

it('PostgreSQL silent once the release is made: the release stands (200), and is recorded once PostgreSQL answers', async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  const froze = pg.freezeOn('UPDATE audit_entries');
  const r = await forceRelease(h);
  await froze;
  expect([r.status, r.body.status]).toEqual([200, 'RELEASED']);
  expect(await entries(h)).toEqual([{ status: 'PENDING' }]);
  pg.thaw();
  expect(await auditedTargets()).toContain(h.holdId); // decided from Redis's ledger by the read
  expect(await entries(h)).toEqual([{ status: 'DONE' }]);
  await expectReleasedOnce(h);
});

it('Redis silent between the entry and the release: 503, then no entry is left and the hold is as it was', async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  const froze = pg.freezeOn('INSERT INTO audit_entries');
  const answer = forceRelease(h);
  await froze;
  redis.freeze(); // from here on Redis hears nothing of this request until thawed
  pg.thaw();
  const r = await answer;
  expect(r.status).toBe(503);
  expect(await entries(h)).toEqual([{ status: 'PENDING' }]); // the request could not decide it
  redis.thaw();
  // a read once the writer's time is up gives the action up in Redis and deletes its entry
  await eventually(
    async () => !(await auditedTargets()).includes(h.holdId) && (await entries(h)).length === 0,
    15_000,
    'the pending entry deleted',
  );
  await expectAgreement(api, db, h, { status: 'ACTIVE' });
  const retry = await forceRelease(h);
  expect([retry.status, retry.body.status]).toEqual([200, 'RELEASED']);
  await expectReleasedOnce(h);
});

it("the release's Redis reply lost: it was made, and the audit records it", async () => {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  const froze = redis.freezeOn('holdForceRelease');
  const answer = forceRelease(h);
  await froze;
  const r = await answer; // times out on the held-back reply
  expect(r.status).toBe(503);
  redis.thaw(); // the release is delivered now, after the request gave up on it
  await expectReleasedOnce(h); // a retry at once is refused: the hold was released
});
