/**
 * PostgreSQL silent while a hold reads its event's policy (the first hold of an event on an instance, or
 * after the policy's cache entry went): the hold, made by a customer or by an agent on a customer's
 * behalf, is answered 503 with Retry-After in the error envelope, and nothing is held or recorded.
 */
import { createEvent } from '../support/seat-api';
import { SilencedStaffStage, startSilencedStaffStage } from '../support/staff-stage';

jest.setTimeout(60_000);

let stage: SilencedStaffStage;

beforeAll(async () => {
  stage = await startSilencedStaffStage({ rows: 1, perRow: 10, customers: ['alice'] });
});
afterEach(() => stage.thaw());
afterAll(() => stage?.close());

it.each([
  [
    'a customer',
    (eventId: string) => ({
      path: `/v1/events/${eventId}/holds`,
      token: stage.customers[0],
      body: { seatIds: ['S-A-1'] },
    }),
  ],
  [
    'an agent on behalf',
    (eventId: string) => ({
      path: `/v1/events/${eventId}/holds/on-behalf`,
      token: stage.agent,
      body: { customerId: 'alice', seatIds: ['S-A-1'] },
    }),
  ],
])('%s: PostgreSQL silent at the policy read: 503 with Retry-After, nothing held', async (_who, request) => {
  const eventId = await createEvent(stage.api, 1, 10); // its policy not yet read by a hold
  const { path, token, body } = request(eventId);
  const froze = stage.pg.freezeOn('COMMIT'); // the policy is read in a transaction (FOR SHARE)
  const answer = stage.api.call('POST', path, { token, body });
  await froze;
  const r = await answer;
  expect(r.status).toBe(503);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  stage.pg.thaw();
  const map = await stage.api.call('GET', `/v1/events/${eventId}/seats`);
  expect(map.body.seats.find((s: { seatId: string }) => s.seatId === 'S-A-1').status).toBe('AVAILABLE');
  expect(await stage.db.count('audit_entries', 'event_id = $1', [eventId])).toBe(0);
});
