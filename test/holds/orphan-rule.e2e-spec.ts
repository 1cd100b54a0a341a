/**
 * The orphan-seat rule over real HTTP: an event created with settings.orphanRule 'no-single-gaps' refuses
 * a hold by seat ids that would leave one free seat alone in its row (409 SEATS_UNAVAILABLE naming it,
 * reason ORPHAN_SEAT), unless the hold takes that seat too or the row leaves no other way; releases are
 * never refused; 'none' has no such rule; the rule is one of its two values, at creation or in a change
 * (an admin's change of it: test/catalogue/event-rule-changes.e2e-spec.ts).
 * (The test environment creates events with 'none' unless they ask: test/setup/per-file-env.ts.)
 */
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
let admin: string;
let fan: string;

beforeAll(async () => {
  api = await startApi({ HOLD_MAX_SEATS_PER_USER: '100' });
  admin = await api.token('admin-1', ['admin']);
  fan = await api.token('fan-1');
});
afterAll(() => api.close());

/** Section S, rows A (6 seats) and B (3 seats). */
async function eventWith(settings: Record<string, unknown> | undefined) {
  return api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Orphans',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        {
          name: 'S',
          category: 'standard',
          rows: [
            { row: 'A', seats: 6 },
            { row: 'B', seats: 3 },
          ],
        },
      ],
      ...(settings ? { settings } : {}),
    },
  });
}

async function ruledEvent(): Promise<string> {
  const r = await eventWith({ orphanRule: 'no-single-gaps' });
  expect(r.status).toBe(201);
  return r.body.eventId as string;
}

const hold = (eventId: string, seatIds: string[]) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token: fan, body: { seatIds } });

it('refuses a hold that strands a seat at the row end, naming it; taking that seat too is fine', async () => {
  const eventId = await ruledEvent();
  const stranding = await hold(eventId, ['S-A-2', 'S-A-3']);
  expect(stranding.status).toBe(409);
  expect(stranding.body.code).toBe('SEATS_UNAVAILABLE');
  expect(stranding.body.errors).toEqual([{ seatId: 'S-A-1', reason: 'ORPHAN_SEAT' }]);
  expect((await hold(eventId, ['S-A-1', 'S-A-2', 'S-A-3'])).status).toBe(201);
});

it('refuses a hold that strands a seat between taken seats', async () => {
  const eventId = await ruledEvent();
  expect((await hold(eventId, ['S-A-1', 'S-A-2'])).status).toBe(201);
  // 3-6 free: 4-5 would leave 3 (and 6) alone, while 3-4 or 5-6 would not
  const gap = await hold(eventId, ['S-A-4', 'S-A-5']);
  expect(gap.status).toBe(409);
  expect(gap.body.errors).toEqual([{ seatId: 'S-A-3', reason: 'ORPHAN_SEAT' }]);
  expect((await hold(eventId, ['S-A-3', 'S-A-4'])).status).toBe(201);
});

it('lets a hold strand a seat when the row leaves no other way', async () => {
  const eventId = await ruledEvent();
  // row B has 3 seats: any 2 of them leave one alone
  expect((await hold(eventId, ['S-B-1', 'S-B-2'])).status).toBe(201);
  // row A: 1-2 taken, 3-6 free; any 3 of 3-6 leave one alone
  expect((await hold(eventId, ['S-A-1', 'S-A-2'])).status).toBe(201);
  expect((await hold(eventId, ['S-A-4', 'S-A-5', 'S-A-6'])).status).toBe(201);
});

it('never refuses a release, even one that leaves a seat alone', async () => {
  const eventId = await ruledEvent();
  const first = await hold(eventId, ['S-A-1']);
  expect(first.status).toBe(201);
  expect((await hold(eventId, ['S-A-2', 'S-A-3'])).status).toBe(201);
  expect((await hold(eventId, ['S-A-4', 'S-A-5', 'S-A-6'])).status).toBe(201);
  expect((await api.call('DELETE', `/v1/holds/${first.body.holdId}`, { token: fan })).status).toBe(204);
});

it("'none' and the deployment's default: no rule; the event's settings say which it has", async () => {
  const none = await eventWith({ orphanRule: 'none' });
  expect((await hold(none.body.eventId, ['S-A-2'])).status).toBe(201);
  const plain = await eventWith(undefined);
  const read = await api.call('GET', `/v1/events/${plain.body.eventId}`, { token: fan });
  // the test environment's EVENT_ORPHAN_RULE is 'none' (a deployment's default is 'no-single-gaps')
  expect(read.body.settings.orphanRule).toBe('none');
  const ruled = await api.call('GET', `/v1/events/${await ruledEvent()}`, { token: fan });
  expect(ruled.body.settings.orphanRule).toBe('no-single-gaps');
});

it('the rule is one of its two values, at creation and in a change', async () => {
  const bad = await eventWith({ orphanRule: 'sometimes' });
  expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  const eventId = await ruledEvent();
  const patch = await api.call('PATCH', `/v1/events/${eventId}`, {
    token: admin,
    body: { orphanRule: 'sometimes' },
  });
  expect([patch.status, patch.body.code]).toEqual([400, 'VALIDATION_FAILED']);
});

it('best-available holds keep the rule by themselves', async () => {
  const eventId = await ruledEvent();
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: fan,
    body: { bestAvailable: { quantity: 5 } },
  });
  expect(r.status).toBe(201);
  // row A of 6: 5 together strand one seat, so row B (3) cannot take them: A it is, the rule's exception
  expect(r.body.seatIds).toHaveLength(5);
});
