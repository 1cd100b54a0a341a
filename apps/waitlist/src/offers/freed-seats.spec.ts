import {
  bookingCancelledEvent,
  holdConfirmedEvent,
  holdCreatedEvent,
  holdReleasedEvent,
  parseSeatStatus,
  seatExpiredEvent,
  seatsBlockedEvent,
  seatsUnblockedEvent,
  waitlistOfferMadeEvent,
} from '@app/contracts';
import { waitlistChange } from './freed-seats';
import { idempotencyKey } from './offer-holds';

const eventId = '0b6f4c52-8f0e-4f43-9a57-3c1d2e7f9a10';
const at = new Date('2030-01-01T20:00:00Z');
const hold = { eventId, holdId: 'h-1', userId: 'u-1', seatIds: ['S-A-1', 'S-A-2'] };
/** As the consumer meets them: the Kafka record's bytes, checked against the contract. */
const read = (ce: object) => waitlistChange(parseSeatStatus(Buffer.from(JSON.stringify(ce))));

describe('what a seat.status change means to the waiting list', () => {
  it('a released hold frees its seats, named by the change id', () => {
    const ce = holdReleasedEvent({ ...hold, reason: 'FORCE_RELEASED' }, at);
    expect(read(ce)).toEqual({
      kind: 'freed',
      freed: { sourceEventId: ce.id, eventId, seatIds: hold.seatIds, holdId: 'h-1' },
    });
  });

  it('an expired seat frees that seat alone (one message per seat), each its own change', () => {
    const one = seatExpiredEvent(
      { ...hold, seatId: 'S-A-2', expireAt: at.toISOString(), fencingToken: 3 },
      at,
    );
    expect(read(one)).toEqual({
      kind: 'freed',
      freed: { sourceEventId: one.id, eventId, seatIds: ['S-A-2'], holdId: 'h-1' },
    });
  });

  it("a cancelled booking frees the seats it gave back, under the booking's hold", () => {
    const ce = bookingCancelledEvent({ ...hold, bookingId: 'b-1', orderId: 'o-1' }, at);
    expect(read(ce)).toEqual({
      kind: 'freed',
      freed: { sourceEventId: ce.id, eventId, seatIds: hold.seatIds, holdId: 'h-1' },
    });
  });

  it('seats staff unblock are freed (no hold let them go); seats blocked free nothing', () => {
    const unblocked = seatsUnblockedEvent({ eventId, seatIds: ['S-A-3'], actionId: 'a-1' }, at);
    expect(read(unblocked)).toEqual({
      kind: 'freed',
      freed: { sourceEventId: unblocked.id, eventId, seatIds: ['S-A-3'] },
    });
    expect(read(seatsBlockedEvent({ eventId, seatIds: ['S-A-3'], actionId: 'a-1' }, at))).toEqual({
      kind: 'none',
    });
  });

  it('a released hold frees its places of general-admission areas beside its seats', () => {
    const places = [{ area: 'FLOOR', quantity: 3 }];
    const ce = holdReleasedEvent({ ...hold, places, reason: 'RELEASED' }, at);
    expect(read(ce)).toEqual({
      kind: 'freed',
      freed: { sourceEventId: ce.id, eventId, seatIds: hold.seatIds, places, holdId: 'h-1' },
    });
  });

  it('a cancelled booking frees its booked places too', () => {
    const places = [{ area: 'FLOOR', quantity: 2 }];
    const ce = bookingCancelledEvent({ ...hold, seatIds: [], places, bookingId: 'b-2', orderId: 'o-2' }, at);
    expect(read(ce)).toEqual({
      kind: 'freed',
      freed: { sourceEventId: ce.id, eventId, seatIds: [], places, holdId: 'h-1' },
    });
  });

  it('places that ran out free that many of the area, not a seat named after it (one message per area)', () => {
    const ce = seatExpiredEvent(
      {
        ...hold,
        seatId: 'FLOOR',
        area: 'FLOOR',
        quantity: 2,
        expireAt: at.toISOString(),
        fencingToken: 3,
      },
      at,
    );
    expect(read(ce)).toEqual({
      kind: 'freed',
      freed: {
        sourceEventId: ce.id,
        eventId,
        seatIds: [],
        places: [{ area: 'FLOOR', quantity: 2 }],
        holdId: 'h-1',
      },
    });
  });

  it('a confirmed hold is a booking (an offer accepted); the other changes free nothing', () => {
    expect(read(holdConfirmedEvent({ ...hold, orderId: 'o-1' }, at))).toEqual({
      kind: 'booked',
      holdId: 'h-1',
    });
    expect(read(holdCreatedEvent({ ...hold, expireAt: at.toISOString() }, at))).toEqual({ kind: 'none' });
    const offer = { eventId, entryId: 'e-1', userId: 'u-1', holdId: 'h-2', seatIds: ['S-A-1'] };
    expect(read(waitlistOfferMadeEvent({ ...offer, offerExpiresAt: at.toISOString() }, at))).toEqual({
      kind: 'none',
    });
  });
});

describe('the offer hold Idempotency-Key', () => {
  const body = JSON.stringify({ seatIds: ['S-A-1'], ttlSeconds: 300 });

  it('is one the seat API accepts, the same for a retry of the same ask, another for another ask', () => {
    const key = idempotencyKey('h-1:released', 'e-1', body);
    expect(key).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(idempotencyKey('h-1:released', 'e-1', body)).toBe(key);
    expect(idempotencyKey('h-1:released', 'e-2', body)).not.toBe(key);
    expect(idempotencyKey('h-1:S-A-1', 'e-1', body)).not.toBe(key);
    expect(
      idempotencyKey('h-1:released', 'e-1', JSON.stringify({ bestAvailable: { quantity: 2 } })),
    ).not.toBe(key);
  });
});
