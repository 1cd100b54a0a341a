import {
  SEAT_EXPIRED_RECORD_FIELDS as F,
  SEAT_EXPIRED_TYPE,
  SeatExpiredCloudEvent,
  seatExpiredEvent,
} from '@app/contracts';

/** An outbox stream entry as XRANGE returns it: id and the field list XADD wrote. */
export type OutboxEntry = [id: string, fields: string[]];

/**
 * Builds the SeatExpired CloudEvent from the record a hold script wrote (SEAT_EXPIRED_RECORD_FIELDS;
 * hold-store/lua/hold-lifecycle.lua, `expire`), or null when a field is missing (a record written by a
 * script of another version): such a record could never be published. The entry id plays no part: the
 * event's id names the hold and seat.
 */
export function seatExpiredFromOutbox(fields: string[]): SeatExpiredCloudEvent | null {
  const byName: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) {
    byName[fields[i]] = fields[i + 1];
  }
  const f = (field: keyof typeof F): string | undefined => byName[F[field]];
  const texts = [f('eventId'), f('seatId'), f('holdId'), f('userId')];
  const numbers = [f('expireAt'), f('expiredAt'), f('fencingToken')].map((v) => (v ? Number(v) : NaN));
  if (f('type') !== SEAT_EXPIRED_TYPE || texts.some((t) => !t) || numbers.some((n) => !Number.isFinite(n))) {
    return null;
  }
  return seatExpiredEvent(
    {
      eventId: f('eventId')!,
      seatId: f('seatId')!,
      holdId: f('holdId')!,
      userId: f('userId')!,
      expireAt: new Date(Number(f('expireAt'))).toISOString(),
      fencingToken: Number(f('fencingToken')),
    },
    new Date(Number(f('expiredAt'))),
  );
}
