import {
  bookingCancelledEvent,
  parseSeatStatus,
  seatExpiredKafkaMessage,
  seatExpiredEvent,
  SeatStatusSchemaError,
  seatStatusKafkaMessage,
} from '@app/contracts';

const data = {
  eventId: '8d1f0a3c-6f7e-4c1b-9a55-2b0c1d2e3f40',
  bookingId: '5b0f9a8e-1c2d-4e3f-8a9b-0c1d2e3f4a5b',
  holdId: '8d1f0a3c6f7e4c1b9a552b0c1d2e3f40AbCdEfGhIjK',
  orderId: 'order-7',
  userId: 'alice',
  seatIds: ['STALLS-A-12', 'STALLS-A-13'],
};

it('names the cancellation by its booking: published twice, one id', () => {
  const first = bookingCancelledEvent(data, new Date('2027-03-01T19:05:00.120Z'));
  const again = bookingCancelledEvent(data, new Date('2027-03-01T19:05:07.480Z'));
  expect(first.id).toBe(data.bookingId);
  expect(again.id).toBe(first.id);
});

it('builds the CloudEvent and its seat.status record, keyed by the show as SeatExpired, which parse back unchanged', () => {
  const ce = bookingCancelledEvent(data, new Date('2027-03-01T19:05:00.123Z'));
  expect(ce).toEqual({
    specversion: '1.0',
    id: data.bookingId,
    source: `/seat-hold/events/${data.eventId}`,
    type: 'BookingCancelled',
    time: '2027-03-01T19:05:00.123Z',
    datacontenttype: 'application/json',
    subject: data.bookingId,
    data,
  });
  const message = seatStatusKafkaMessage(ce);
  const expired = seatExpiredKafkaMessage(
    seatExpiredEvent(
      { eventId: data.eventId, seatId: 'S', holdId: 'h', userId: 'u', expireAt: ce.time, fencingToken: 1 },
      new Date(),
    ),
  );
  expect(message.key).toBe(expired.key);
  expect(message.headers).toMatchObject({ ce_type: 'BookingCancelled', ce_id: ce.id });
  expect(parseSeatStatus(Buffer.from(message.value))).toEqual(ce);
});

it.each([
  ['not JSON', '{oops'],
  [
    'its data under another type',
    JSON.stringify({ ...bookingCancelledEvent(data, new Date()), type: 'SeatExpired' }),
  ],
  [
    'a booking id left out',
    JSON.stringify({ ...bookingCancelledEvent(data, new Date()), data: { ...data, bookingId: undefined } }),
  ],
  [
    'seat ids that are not a list',
    JSON.stringify({ ...bookingCancelledEvent(data, new Date()), data: { ...data, seatIds: 'A-1' } }),
  ],
])('refuses %s', (_what, value) => {
  expect(() => parseSeatStatus(value)).toThrow(SeatStatusSchemaError);
});
