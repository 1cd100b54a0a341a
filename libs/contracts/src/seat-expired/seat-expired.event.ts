/**
 * The SeatExpired contract: what the seat API publishes when a hold runs out and what every consumer
 * (the expiry consumer, other teams) may rely on. One CloudEvents 1.0 event in structured JSON mode per
 * freed seat. Both apps import it from here; neither imports the other.
 */

/** CloudEvents `type`. */
export const SEAT_EXPIRED_TYPE = 'SeatExpired';

/** Default Kafka topics (deployments may rename them: KAFKA_TOPIC_SEAT_EXPIRED, KAFKA_TOPIC_DEAD_LETTER). */
export const SEAT_EXPIRED_TOPIC = 'seat.expired';
export const SEAT_EXPIRED_DEAD_LETTER_TOPIC = 'seat.expired.dlq';

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
  /** `<holdId>:<seatId>`, see seatExpiredId. */
  id: string;
  source: string;
  type: typeof SEAT_EXPIRED_TYPE;
  /** When the seat was freed (ISO 8601, Redis time). */
  time: string;
  datacontenttype: 'application/json';
  subject: string;
  data: SeatExpiredData;
}

/**
 * The CloudEvent id names the expiry itself, not the record that carried it: a hold ends at most once,
 * so its id and the seat identify one SeatExpired. (Hold ids are unique across events: they embed the
 * event id and 64 random bits.) Whatever publishes it twice gives it the same id, so consumers drop the
 * copy by id alone: the relay re-publishing after a crash between Kafka's ack and Redis's, and the
 * sweeper expiring the same hold again after Redis lost its last writes (restart on an AOF missing its
 * last second, failover to a lagging replica), which writes a new outbox record. An id built from the
 * outbox entry id would differ in the second case.
 */
export function seatExpiredId(holdId: string, seatId: string): string {
  return `${holdId}:${seatId}`;
}

/** CloudEvents `source`: the show whose seat was freed. */
export function seatExpiredSource(eventId: string): string {
  return `/seat-hold/events/${eventId}`;
}

/** The event for one freed seat; `freedAt` is when the seat was freed (`time`). */
export function seatExpiredEvent(data: SeatExpiredData, freedAt: Date): SeatExpiredCloudEvent {
  return {
    specversion: '1.0',
    id: seatExpiredId(data.holdId, data.seatId),
    source: seatExpiredSource(data.eventId),
    type: SEAT_EXPIRED_TYPE,
    time: freedAt.toISOString(),
    datacontenttype: 'application/json',
    subject: data.seatId,
    data,
  };
}

/**
 * The Kafka record: keyed by the show (one show's changes stay in order on one partition), the
 * structured-mode value, and the CloudEvents Kafka binding's headers so a consumer can route without
 * parsing the value.
 */
export function seatExpiredKafkaMessage(ce: SeatExpiredCloudEvent): {
  key: string;
  value: string;
  headers: Record<string, string>;
} {
  return {
    key: ce.data.eventId,
    value: JSON.stringify(ce),
    headers: {
      'content-type': 'application/cloudevents+json; charset=UTF-8',
      ce_type: ce.type,
      ce_id: ce.id,
    },
  };
}
