import type { SeatExpiredCloudEvent } from '../../seat-api/src/expiry/seat-expired.event';

export class PoisonMessageError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PoisonMessageError';
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Checks a Kafka message value is a SeatExpired CloudEvent we can store; anything else is poison. */
export function parseSeatExpired(value: unknown): SeatExpiredCloudEvent {
  let ce: unknown = value;
  if (Buffer.isBuffer(ce)) {
    ce = ce.toString('utf8');
  }
  if (typeof ce === 'string') {
    try {
      ce = JSON.parse(ce);
    } catch {
      throw new PoisonMessageError('value is not JSON');
    }
  }
  if (typeof ce !== 'object' || ce === null) {
    throw new PoisonMessageError('value is not a JSON object');
  }
  const e = ce as Partial<SeatExpiredCloudEvent>;
  if (e.specversion !== '1.0') {
    throw new PoisonMessageError(`unsupported specversion ${String(e.specversion)}`);
  }
  if (e.type !== 'SeatExpired') {
    throw new PoisonMessageError(`unknown type ${String(e.type)}`);
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
    typeof d.fencingToken !== 'number'
  ) {
    throw new PoisonMessageError('data does not match the SeatExpired schema');
  }
  return e as SeatExpiredCloudEvent;
}
