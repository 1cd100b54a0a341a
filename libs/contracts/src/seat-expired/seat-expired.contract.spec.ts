import {
  parseSeatExpired,
  seatExpiredEvent,
  seatExpiredId,
  seatExpiredKafkaMessage,
  SeatExpiredSchemaError,
} from '@app/contracts';

const data = {
  eventId: '8d1f0a3c-6f7e-4c1b-9a55-2b0c1d2e3f40',
  seatId: 'STALLS-A-12',
  holdId: '8d1f0a3c6f7e4c1b9a552b0c1d2e3f40AbCdEfGhIjK',
  userId: 'alice',
  expireAt: '2027-03-01T19:05:00.000Z',
  fencingToken: 42,
};

it('names the expiry by hold and seat: the same hold and seat freed twice give one id', () => {
  const first = seatExpiredEvent(data, new Date('2027-03-01T19:05:00.120Z'));
  const again = seatExpiredEvent(data, new Date('2027-03-01T19:05:07.480Z'));
  expect(first.id).toBe(`${data.holdId}:${data.seatId}`);
  expect(again.id).toBe(first.id);
  expect(seatExpiredEvent({ ...data, seatId: 'STALLS-A-13' }, new Date()).id).not.toBe(first.id);
  expect(seatExpiredId(data.holdId, data.seatId)).toBe(first.id);
});

it('builds the CloudEvent and its Kafka record, which parse back unchanged', () => {
  const ce = seatExpiredEvent(data, new Date('2027-03-01T19:05:00.123Z'));
  expect(ce).toEqual({
    specversion: '1.0',
    id: `${data.holdId}:STALLS-A-12`,
    source: `/seat-hold/events/${data.eventId}`,
    type: 'SeatExpired',
    time: '2027-03-01T19:05:00.123Z',
    datacontenttype: 'application/json',
    subject: 'STALLS-A-12',
    data,
  });
  const message = seatExpiredKafkaMessage(ce);
  expect(message.key).toBe(data.eventId);
  expect(message.headers).toMatchObject({ ce_type: 'SeatExpired', ce_id: ce.id });
  expect(parseSeatExpired(Buffer.from(message.value))).toEqual(ce);
});

it('still accepts an id of the earlier rule (messages already on the topic stay valid)', () => {
  const old = { ...seatExpiredEvent(data, new Date()), id: `${data.eventId}:1795399426234-0:STALLS-A-12` };
  expect(parseSeatExpired(JSON.stringify(old)).id).toBe(old.id);
});

it.each([
  ['not JSON', '{oops', /not JSON/],
  ['not an object', '42', /not a JSON object/],
  [
    'another specversion',
    JSON.stringify({ ...seatExpiredEvent(data, new Date()), specversion: '0.3' }),
    /specversion/,
  ],
  [
    'another type',
    JSON.stringify({ ...seatExpiredEvent(data, new Date()), type: 'SeatBooked' }),
    /unknown type/,
  ],
  ['an empty id', JSON.stringify({ ...seatExpiredEvent(data, new Date()), id: '' }), /schema/],
  [
    'a bad expireAt',
    JSON.stringify({ ...seatExpiredEvent(data, new Date()), data: { ...data, expireAt: 'soon' } }),
    /schema/,
  ],
])('refuses %s', (_what, value, reason) => {
  expect(() => parseSeatExpired(value)).toThrow(SeatExpiredSchemaError);
  expect(() => parseSeatExpired(value)).toThrow(reason);
});

describe('places of a general-admission area', () => {
  const places = { ...data, seatId: 'FLOOR', area: 'FLOOR', quantity: 3 };

  it('one message per area and hold: seatId is the area, so a reader of seats alone reads it as before', () => {
    const ce = seatExpiredEvent(places, new Date('2027-03-01T19:05:00.123Z'));
    expect(ce.id).toBe(`${data.holdId}:FLOOR`);
    expect(ce.subject).toBe('FLOOR');
    const back = parseSeatExpired(Buffer.from(seatExpiredKafkaMessage(ce).value));
    expect(back.data).toEqual(places);
    // what a consumer written for seats reads of it: every field it knows, all present
    const { eventId, seatId, holdId, userId, expireAt, fencingToken } = back.data;
    expect({ eventId, seatId, holdId, userId, expireAt, fencingToken }).toEqual({ ...data, seatId: 'FLOOR' });
  });

  it.each([
    ['an area without a quantity', { ...data, area: 'FLOOR' }],
    ['a quantity without an area', { ...data, quantity: 2 }],
    ['a quantity of 0', { ...places, quantity: 0 }],
    ['a fractional quantity', { ...places, quantity: 1.5 }],
    ['an empty area', { ...places, area: '' }],
  ])('refuses %s', (_what, d) => {
    const value = JSON.stringify({ ...seatExpiredEvent(data, new Date()), data: d });
    expect(() => parseSeatExpired(value)).toThrow(SeatExpiredSchemaError);
  });
});
