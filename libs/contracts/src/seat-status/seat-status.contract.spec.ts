import {
  ADMISSION_EXPIRED_TYPE,
  QUEUE_CLOSED_TYPE,
  QUEUE_OPENED_TYPE,
  QUEUE_PAUSED_TYPE,
  QUEUE_RESUMED_TYPE,
  QUEUE_UPDATED_TYPE,
  queueChangeEvent,
  SHOPPER_ADMITTED_TYPE,
  SHOPPER_FINISHED_TYPE,
  shopperTurnEvent,
  bookingCancelledEvent,
  holdConfirmedEvent,
  holdCreatedEvent,
  holdExtendedEvent,
  holdReleasedEvent,
  parseSeatStatus,
  SEAT_STATUS_SCHEMAS,
  SEAT_STATUS_TOPIC,
  SEAT_STATUS_TYPES,
  seatExpiredEvent,
  seatExpiredKafkaMessage,
  SeatStatusSchemaError,
  seatStatusKafkaMessage,
  seatsBlockedEvent,
  seatsUnblockedEvent,
  staffActionRecordedEvent,
  waitlistOfferMadeEvent,
} from '@app/contracts';

const eventId = '8d1f0a3c-6f7e-4c1b-9a55-2b0c1d2e3f40';
const holdId = '8d1f0a3c6f7e4c1b9a552b0c1d2e3f40AbCdEfGhIjK';
const hold = { eventId, holdId, userId: 'alice', seatIds: ['STALLS-A-12', 'STALLS-A-13'] };
const at = new Date('2027-03-01T19:05:00.123Z');
const expireAt = '2027-03-01T19:15:00.000Z';

const entryId = '8d1f0a3c6f7e4c1b9a552b0c1d2e3f40AbCdEfGhIjKl';
const turn = { eventId, entryId, userId: 'carol', number: 17, activeShoppers: 3 };

const every = [
  holdCreatedEvent({ ...hold, expireAt }, at),
  holdExtendedEvent({ ...hold, expireAt, extension: 2 }, at),
  holdReleasedEvent({ ...hold, reason: 'FORCE_RELEASED' }, at),
  holdConfirmedEvent({ ...hold, orderId: 'order-7' }, at),
  seatExpiredEvent(
    { eventId, seatId: 'STALLS-A-12', holdId, userId: 'alice', expireAt, fencingToken: 3 },
    at,
  ),
  bookingCancelledEvent({ ...hold, bookingId: 'b-1', orderId: 'order-7' }, at),
  waitlistOfferMadeEvent(
    { eventId, entryId: 'e-9', userId: 'bob', holdId, seatIds: ['STALLS-A-12'], offerExpiresAt: expireAt },
    at,
  ),
  seatsBlockedEvent({ eventId, seatIds: ['STALLS-B-1'], actionId: 'a-1' }, at),
  seatsUnblockedEvent({ eventId, seatIds: ['STALLS-B-1'], actionId: 'a-2' }, at),
  staffActionRecordedEvent(
    {
      eventId,
      actionId: 'a-3',
      actor: 'admin-1',
      action: 'HOLD_FORCE_RELEASE',
      target: holdId,
      reason: 'duplicate order',
      at: at.toISOString(),
    },
    at,
  ),
  queueChangeEvent(
    QUEUE_OPENED_TYPE,
    {
      eventId,
      actionId: 'a-4',
      opensAt: '2027-03-01T18:00:00.000Z',
      salesStartAt: '2027-03-01T19:00:00.000Z',
      order: 'shuffle-then-fifo',
      admitPerMinute: 600,
      maxActiveShoppers: 200,
    },
    at,
  ),
  queueChangeEvent(QUEUE_PAUSED_TYPE, { eventId, actionId: 'a-5' }, at),
  queueChangeEvent(QUEUE_RESUMED_TYPE, { eventId, actionId: 'a-6' }, at),
  queueChangeEvent(
    QUEUE_UPDATED_TYPE,
    { eventId, actionId: 'a-7', admitPerMinute: 300, maxActiveShoppers: 100, letIn: 0 },
    at,
  ),
  queueChangeEvent(QUEUE_CLOSED_TYPE, { eventId, actionId: 'a-8' }, at),
  shopperTurnEvent(SHOPPER_ADMITTED_TYPE, { ...turn, passExpiresAt: expireAt }, at),
  shopperTurnEvent(ADMISSION_EXPIRED_TYPE, turn, at),
  shopperTurnEvent(SHOPPER_FINISHED_TYPE, { ...turn, reason: 'CONFIRMED' }, at),
];

it('has a schema for every type and the default topic seat.status', () => {
  expect(SEAT_STATUS_TOPIC).toBe('seat.status');
  expect(Object.keys(SEAT_STATUS_SCHEMAS).sort()).toEqual([...SEAT_STATUS_TYPES].sort());
  expect(every.map((ce) => ce.type).sort()).toEqual([...SEAT_STATUS_TYPES].sort());
});

it('names each change: the same change built twice, at other times, has one id', () => {
  expect(every.map((ce) => ce.id)).toEqual([
    `${holdId}:created`,
    `${holdId}:extended:2`,
    `${holdId}:released`,
    `${holdId}:confirmed`,
    `${holdId}:STALLS-A-12`,
    'b-1',
    `e-9:offer:${holdId}`,
    'a-1:blocked',
    'a-2:unblocked',
    'a-3:staff',
    'a-4:QueueOpened',
    'a-5:QueuePaused',
    'a-6:QueueResumed',
    'a-7:QueueUpdated',
    'a-8:QueueClosed',
    `${entryId}:17:ShopperAdmitted`,
    `${entryId}:17:AdmissionExpired`,
    `${entryId}:17:ShopperFinished`,
  ]);
  const later = new Date(at.getTime() + 7000);
  expect(holdCreatedEvent({ ...hold, expireAt }, later).id).toBe(every[0].id);
  expect(holdExtendedEvent({ ...hold, expireAt, extension: 3 }, at).id).not.toBe(every[1].id);
});

it.each(every.map((ce) => [ce.type, ce] as const))(
  'a %s goes keyed by the show and parses back unchanged',
  (_type, ce) => {
    const message = seatStatusKafkaMessage(ce);
    expect(message.key).toBe(eventId);
    expect(message.headers).toMatchObject({ ce_type: ce.type, ce_id: ce.id });
    expect(parseSeatStatus(Buffer.from(message.value))).toEqual(ce);
  },
);

it('carries a SeatExpired exactly as seat.expired does', () => {
  expect(seatStatusKafkaMessage(every[4])).toEqual(seatExpiredKafkaMessage(every[4] as never));
});

it.each([
  ['not JSON', '{oops'],
  ['an unknown type', JSON.stringify({ ...every[0], type: 'SeatBooked' })],
  ['a missing expireAt', JSON.stringify({ ...every[0], data: hold })],
  ['an extension of 0', JSON.stringify({ ...every[1], data: { ...every[1].data, extension: 0 } })],
  ['an unknown release reason', JSON.stringify({ ...every[2], data: { ...every[2].data, reason: 'BORED' } })],
  ['a bad time', JSON.stringify({ ...every[3], time: 'soon' })],
  [
    'an unknown staff action',
    JSON.stringify({ ...every[9], data: { ...every[9].data, action: 'HOLD_STEAL' } }),
  ],
])('refuses %s', (_what, value) => {
  expect(() => parseSeatStatus(value)).toThrow(SeatStatusSchemaError);
});

describe('a HoldConfirmed with what the booking was sold for', () => {
  const price = {
    currency: 'EUR',
    priceListVersion: 3,
    promoCode: 'SUMMER10',
    lines: [
      { seatId: 'STALLS-A-12', category: 'standard', ticketType: 'adult', unitPrice: 4500, discount: 450 },
      { seatId: 'STALLS-A-13', category: 'standard', ticketType: 'child', unitPrice: 2000, discount: 0 },
    ],
    subtotal: 6500,
    discountTotal: 450,
    total: 6050,
  };
  const priced = holdConfirmedEvent({ ...hold, orderId: 'order-7', ...price }, at);

  it('parses back unchanged; one without prices stays valid', () => {
    expect(parseSeatStatus(Buffer.from(seatStatusKafkaMessage(priced).value))).toEqual(priced);
    expect(parseSeatStatus(JSON.stringify(every[3]))).toEqual(every[3]);
  });

  it.each([
    ['a fractional price', { lines: [{ ...price.lines[0], unitPrice: 45.5 }] }],
    ['a negative total', { total: -10 }],
    ['a currency that is no ISO 4217 code', { currency: 'euro' }],
    ['a line without its ticket type', { lines: [{ ...price.lines[0], ticketType: undefined }] }],
  ])('refuses %s', (_what, change) => {
    const value = JSON.stringify({ ...priced, data: { ...priced.data, ...change } });
    expect(() => parseSeatStatus(value)).toThrow(SeatStatusSchemaError);
  });
});
