/**
 * The SeatExpired message on Kafka: a CloudEvents 1.0 event in structured JSON mode, one per seat.
 * `id` is derived from the outbox entry, so a record published twice (relay crash after Kafka acked,
 * before Redis did) carries the same id and consumers drop the duplicate. The seat id is part of it
 * because a stream entry id alone could repeat if Redis lost its newest writes (failover to a lagging
 * replica) and handed out the same millisecond-sequence again.
 */
export interface SeatExpiredData {
  eventId: string;
  seatId: string;
  holdId: string;
  userId: string;
  /** When the hold was due to end (ISO 8601). */
  expireAt: string;
  /** Fencing token of the last lock-holder write to the hold: orders events for the same seat. */
  fencingToken: number;
}

export interface SeatExpiredCloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: 'SeatExpired';
  time: string;
  datacontenttype: 'application/json';
  subject: string;
  data: SeatExpiredData;
}

/**
 * Builds the CloudEvent from an outbox stream entry (field list as XADD wrote it), or null when the
 * record lacks a field (written by a script of another version): it could never be published.
 */
export function seatExpiredFromOutbox(entryId: string, fields: string[]): SeatExpiredCloudEvent | null {
  const f: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) {
    f[fields[i]] = fields[i + 1];
  }
  const texts = [f.eventId, f.seatId, f.holdId, f.userId];
  const numbers = [f.expireAt, f.expiredAt, f.fencingToken].map((v) => (v ? Number(v) : NaN));
  if (f.type !== 'SeatExpired' || texts.some((t) => !t) || numbers.some((n) => !Number.isFinite(n))) {
    return null;
  }
  return {
    specversion: '1.0',
    id: `${f.eventId}:${entryId}:${f.seatId}`,
    source: `/seat-hold/events/${f.eventId}`,
    type: 'SeatExpired',
    time: new Date(Number(f.expiredAt)).toISOString(),
    datacontenttype: 'application/json',
    subject: f.seatId,
    data: {
      eventId: f.eventId,
      seatId: f.seatId,
      holdId: f.holdId,
      userId: f.userId,
      expireAt: new Date(Number(f.expireAt)).toISOString(),
      fencingToken: Number(f.fencingToken),
    },
  };
}
