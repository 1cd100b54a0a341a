import { SEAT_STATUS_RECORD_FIELDS as S } from '@app/contracts';
import { eventFromOutbox } from './outbox-record';

const eventId = '8d1f0a3c-6f7e-4c1b-9a55-2b0c1d2e3f40';
const holdId = '8d1f0a3c6f7e4c1b9a552b0c1d2e3f40AbCdEfGhIjK';
/** A record's field list as the hold scripts write it (hold-lifecycle.lua status_change). */
const record = (type: string, more: Record<string, string | number>): string[] =>
  Object.entries({
    [S.type]: type,
    [S.eventId]: eventId,
    [S.holdId]: holdId,
    [S.userId]: 'alice',
    [S.seatIds]: 'S-A-1,S-A-2',
    [S.at]: Date.parse('2027-03-01T19:05:00.123Z'),
    ...more,
  }).flatMap(([k, v]) => [k, String(v)]);

it('turns each hold change record into its CloudEvent, named by the change', () => {
  const expireAt = Date.parse('2027-03-01T19:15:00.000Z');
  expect(eventFromOutbox(record('HoldCreated', { [S.expireAt]: expireAt }))).toMatchObject({
    id: `${holdId}:created`,
    time: '2027-03-01T19:05:00.123Z',
    data: {
      eventId,
      holdId,
      userId: 'alice',
      seatIds: ['S-A-1', 'S-A-2'],
      expireAt: '2027-03-01T19:15:00.000Z',
    },
  });
  expect(eventFromOutbox(record('HoldExtended', { [S.expireAt]: expireAt, [S.extension]: 2 }))?.id).toBe(
    `${holdId}:extended:2`,
  );
  expect(eventFromOutbox(record('HoldReleased', { [S.reason]: 'FORCE_RELEASED' }))?.data).toMatchObject({
    reason: 'FORCE_RELEASED',
  });
  expect(eventFromOutbox(record('HoldConfirmed', { [S.orderId]: 'o-1' }))?.id).toBe(`${holdId}:confirmed`);
  // a release whose seats were all booked meanwhile frees none: an empty list, not a list of ''
  expect(
    eventFromOutbox(record('HoldReleased', { [S.reason]: 'RELEASED', [S.seatIds]: '' }))?.data,
  ).toMatchObject({
    seatIds: [],
  });
  expect(
    eventFromOutbox(record('WaitlistOfferMade', { [S.entryId]: 'e-1', [S.offerExpiresAt]: expireAt }))?.id,
  ).toBe(`e-1:offer:${holdId}`);
  const blocked = [
    'type',
    'SeatsBlocked',
    'eventId',
    eventId,
    'seatIds',
    'S-B-1',
    'actionId',
    'a-1',
    'at',
    '1',
  ];
  expect(eventFromOutbox(blocked)).toMatchObject({
    id: 'a-1:blocked',
    data: { eventId, seatIds: ['S-B-1'] },
  });
  blocked[1] = 'SeatsUnblocked';
  expect(eventFromOutbox(blocked)?.id).toBe('a-1:unblocked');
});

/** A staff action's record as hold-lifecycle.lua staff_applied writes it. */
const staff = (more: Record<string, string>): string[] =>
  Object.entries({
    [S.type]: 'StaffActionRecorded',
    [S.eventId]: eventId,
    [S.actionId]: 'a-3',
    [S.actor]: 'admin-1',
    [S.action]: 'SEATS_BLOCK',
    [S.target]: 'S-B-1,S-B-2',
    [S.reason]: 'camera position',
    [S.at]: String(Date.parse('2027-03-01T19:05:00.123Z')),
    ...more,
  }).flatMap(([k, v]) => [k, v]);

it("turns a staff action's record into its StaffActionRecorded; a reason left '' is null", () => {
  const data = {
    eventId,
    actionId: 'a-3',
    actor: 'admin-1',
    action: 'SEATS_BLOCK',
    target: 'S-B-1,S-B-2',
    reason: 'camera position',
    at: '2027-03-01T19:05:00.123Z',
  };
  expect(eventFromOutbox(staff({}))).toMatchObject({ id: 'a-3:staff', subject: 'a-3', data });
  expect(eventFromOutbox(staff({ [S.reason]: '' }))?.data).toEqual({ ...data, reason: null });
});

it.each([
  ['an unknown type', record('HoldBooked', {})],
  ['a HoldCreated without expireAt', record('HoldCreated', {})],
  ['a HoldExtended without its count', record('HoldExtended', { [S.expireAt]: 1 })],
  ['an unknown release reason', record('HoldReleased', { [S.reason]: 'BORED' })],
  ['a HoldConfirmed without order', record('HoldConfirmed', {})],
  ['a SeatsBlocked without its action', record('SeatsBlocked', {})],
  ['a record without time', record('HoldConfirmed', { [S.orderId]: 'o', [S.at]: '' })],
  ['a staff action of an unknown name', staff({ [S.action]: 'HOLD_STEAL' })],
  ['a staff action without its actor', staff({ [S.actor]: '' })],
])('refuses %s (moved aside by the relay)', (_what, fields) => {
  expect(eventFromOutbox(fields)).toBeNull();
});

it("a HoldConfirmed carries its booking's price (JSON in the record); one whose price is not JSON is moved aside", () => {
  const price = {
    currency: 'EUR',
    priceListVersion: 2,
    lines: [{ seatId: 'S-A-1', category: 'standard', ticketType: 'adult', unitPrice: 4500, discount: 0 }],
    subtotal: 4500,
    discountTotal: 0,
    total: 4500,
  };
  const confirmed = eventFromOutbox(
    record('HoldConfirmed', { [S.orderId]: 'o-1', [S.price]: JSON.stringify(price) }),
  );
  expect(confirmed?.data).toEqual({
    eventId,
    holdId,
    userId: 'alice',
    seatIds: ['S-A-1', 'S-A-2'],
    orderId: 'o-1',
    ...price,
  });
  expect(
    eventFromOutbox(record('HoldConfirmed', { [S.orderId]: 'o-1', [S.price]: '' }))?.data,
  ).not.toHaveProperty('total');
  expect(eventFromOutbox(record('HoldConfirmed', { [S.orderId]: 'o-1', [S.price]: '{oops' }))).toBeNull();
  expect(eventFromOutbox(record('HoldConfirmed', { [S.orderId]: 'o-1', [S.price]: '[1]' }))).toBeNull();
});
