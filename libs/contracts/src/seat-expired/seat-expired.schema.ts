import { SEAT_EXPIRED_TYPE, SeatExpiredCloudEvent } from './seat-expired.event';

/** A message that is not a SeatExpired this contract describes: retrying it can never succeed. */
export class SeatExpiredSchemaError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SeatExpiredSchemaError';
  }
}

/**
 * A well-formed CloudEvent of another type (the topic carries SeatExpired alone today, but a reader must
 * not break on a type added later). Not poison: a SeatExpired reader skips it; the message is whole for
 * the readers of its type.
 */
export class OtherEventTypeError extends SeatExpiredSchemaError {
  constructor(readonly eventType: string) {
    super(`unknown type ${eventType}`);
    this.name = 'OtherEventTypeError';
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Checks a Kafka message value (bytes, text or parsed JSON) is a SeatExpired CloudEvent and returns it;
 * throws SeatExpiredSchemaError otherwise. The id is checked to be a non-empty string, not recomputed:
 * records published before the `<holdId>:<seatId>` rule carried `<eventId>:<entry id>:<seatId>` and
 * stay valid, deduplicated by their own id.
 */
export function parseSeatExpired(value: unknown): SeatExpiredCloudEvent {
  let ce: unknown = value;
  if (Buffer.isBuffer(ce)) {
    ce = ce.toString('utf8');
  }
  if (typeof ce === 'string') {
    try {
      ce = JSON.parse(ce);
    } catch {
      throw new SeatExpiredSchemaError('value is not JSON');
    }
  }
  if (typeof ce !== 'object' || ce === null) {
    throw new SeatExpiredSchemaError('value is not a JSON object');
  }
  const e = ce as Partial<SeatExpiredCloudEvent>;
  if (e.specversion !== '1.0') {
    throw new SeatExpiredSchemaError(`unsupported specversion ${String(e.specversion)}`);
  }
  if (e.type !== SEAT_EXPIRED_TYPE) {
    throw isString(e.type) && isString(e.id)
      ? new OtherEventTypeError(e.type)
      : new SeatExpiredSchemaError(`unknown type ${String(e.type)}`);
  }
  const d = e.data;
  if (
    !isString(e.id) ||
    !d ||
    !isString(d.eventId) ||
    !isString(d.seatId) ||
    !isString(d.holdId) ||
    !isString(d.userId) ||
    !isString(d.expireAt) ||
    Number.isNaN(Date.parse(d.expireAt)) ||
    typeof d.fencingToken !== 'number' ||
    // places of an area: both or neither, the quantity a whole number of places
    (d.area === undefined) !== (d.quantity === undefined) ||
    (d.area !== undefined && !isString(d.area)) ||
    (d.quantity !== undefined && !(Number.isInteger(d.quantity) && d.quantity >= 1))
  ) {
    throw new SeatExpiredSchemaError('data does not match the SeatExpired schema');
  }
  return e as SeatExpiredCloudEvent;
}
