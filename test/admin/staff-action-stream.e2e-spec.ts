/**
 * Staff actions on the seat.status stream, against the real services (PostgreSQL, Redis, Kafka): a force
 * release, a block, a hold on a customer's behalf and an unblock each publish one StaffActionRecorded (id `<actionId>:staff`, valid
 * against its schema) that says what the action's audit entry (GET /v1/events/{eventId}/audit) says:
 * who, what, on which target, why. An action the hold store refuses (409) is in neither: its record is
 * written in the same Lua step as the action's mark in the staff ledger, so only a change made has one.
 */
import { parseSeatStatus, StaffActionRecordedCloudEvent } from '@app/contracts';
import { holdSeats } from '../support/confirm-agreement';
import { eventually, TopicProbe } from '../support/kafka-probe';
import { Api } from '../support/seat-api';
import { StaffStageOnSeatStatus, startStaffStageOnSeatStatus } from '../support/staff-stage';

jest.setTimeout(120_000);

let stage: StaffStageOnSeatStatus;
let api: Api;
let topic: TopicProbe;
let eventId: string;
let admin: string;
let agent: string;
let alice: string;
let bob: string;

beforeAll(async () => {
  stage = await startStaffStageOnSeatStatus({ rows: 1, perRow: 20, customers: ['alice', 'bob'] });
  ({
    api,
    topic,
    eventId,
    admin,
    agent,
    customers: [alice, bob],
  } = stage);
});
afterAll(() => stage?.close());

/** This show's StaffActionRecorded messages, each checked against its schema and its Kafka binding. */
function staffActions(): StaffActionRecordedCloudEvent[] {
  return topic.messages
    .filter((m) => m.key?.toString() === eventId && m.headers?.ce_type?.toString() === 'StaffActionRecorded')
    .map((m) => {
      const ce = parseSeatStatus(m.value) as StaffActionRecordedCloudEvent;
      expect(m.headers?.ce_id?.toString()).toBe(ce.id);
      return ce;
    });
}

const seatsChange = (change: 'block' | 'unblock', seatIds: string[], reason: string) =>
  api.call('POST', `/v1/events/${eventId}/seats/${change}`, { token: admin, body: { seatIds, reason } });

it('a force release, a block and a hold on behalf are on seat.status as their audit entries say; a refused action is on neither', async () => {
  const held = await holdSeats(api, alice, eventId, ['S-A-1', 'S-A-2']);
  const forced = await api.call('POST', `/v1/holds/${held.holdId}/force-release`, {
    token: admin,
    body: { reason: 'duplicate order' },
  });
  expect(forced.status).toBe(200);
  expect((await seatsChange('block', ['S-A-5'], 'camera position')).status).toBe(200);
  const forCarol = await api.call('POST', `/v1/events/${eventId}/holds/on-behalf`, {
    token: agent,
    body: { customerId: 'carol', seatIds: ['S-A-9'] },
  });
  expect(forCarol.status).toBe(201);
  // refused by the hold store's script (the seat is held): the audit entry written before it goes
  await holdSeats(api, bob, eventId, ['S-A-7']);
  const refused = await seatsChange('block', ['S-A-7'], 'broken seat');
  expect([refused.status, refused.body.code]).toEqual([409, 'SEATS_UNAVAILABLE']);
  // made after the refused one in the same shard outbox, which the relay publishes in order: once this
  // one is on the topic, a record of the refused action would be too
  expect((await seatsChange('unblock', ['S-A-5'], 'camera moved')).status).toBe(200);
  await eventually(
    () => staffActions().some((ce) => ce.data.action === 'SEATS_UNBLOCK'),
    30_000,
    'the unblock on seat.status',
  );

  const audit = await api.call('GET', `/v1/events/${eventId}/audit`, { token: admin });
  expect(audit.status).toBe(200);
  const entries = audit.body.items as {
    actionId: string;
    actor: string;
    action: string;
    target: string;
    reason?: string;
  }[];
  expect(entries.map((e) => [e.action, e.target])).toEqual([
    ['HOLD_FORCE_RELEASE', held.holdId],
    ['SEATS_BLOCK', 'S-A-5'],
    ['HOLD_ON_BEHALF', forCarol.body.holdId],
    ['SEATS_UNBLOCK', 'S-A-5'],
  ]);
  const seen = new Set<string>();
  const published = staffActions().filter((ce) => !seen.has(ce.id) && seen.add(ce.id));
  expect(published.map((ce) => ({ id: ce.id, subject: ce.subject, data: ce.data }))).toEqual(
    entries.map((e) => ({
      id: `${e.actionId}:staff`,
      subject: e.actionId,
      data: {
        eventId,
        actionId: e.actionId,
        actor: e.actor,
        action: e.action,
        target: e.target,
        // a hold on a customer's behalf takes no reason
        reason: e.reason ?? null,
        at: expect.any(String),
      },
    })),
  );
  for (const ce of published) {
    expect(ce.data.at).toBe(ce.time);
  }
  expect(entries.map((e) => [e.actor, e.reason])).toEqual([
    ['admin-1', 'duplicate order'],
    ['admin-1', 'camera position'],
    ['agent-1', undefined],
    ['admin-1', 'camera moved'],
  ]);
});
