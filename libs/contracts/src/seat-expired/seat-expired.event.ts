/**
 * The SeatExpired contract: what the seat API publishes when a hold runs out and what every consumer
 * (the expiry consumer, other teams) may rely on. One CloudEvents 1.0 event in structured JSON mode per
 * freed seat. Both apps import it from here; neither imports the other.
 */
import { CloudEvent, cloudEvent, cloudEventKafkaMessage } from '../cloud-event';

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
  /**
   * Set when the expiry frees places of a general-admission area rather than a seat: the area's name
   * (`seatId` carries it too, so a consumer that reads seats alone still gets one message per area and
   * hold) and how many places went back.
   */
  area?: string;
  quantity?: number;
}

/** id `<holdId>:<seatId>` (seatExpiredId), subject the seat, time when the seat was freed. */
export type SeatExpiredCloudEvent = CloudEvent<typeof SEAT_EXPIRED_TYPE, SeatExpiredData>;

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

/** The event for one freed seat; `freedAt` is when the seat was freed (`time`). */
export function seatExpiredEvent(data: SeatExpiredData, freedAt: Date): SeatExpiredCloudEvent {
  return cloudEvent(SEAT_EXPIRED_TYPE, seatExpiredId(data.holdId, data.seatId), data.seatId, data, freedAt);
}

/** The Kafka record of a SeatExpired (cloud-event.ts: keyed by the show, the binding's headers). */
export const seatExpiredKafkaMessage = (ce: SeatExpiredCloudEvent) => cloudEventKafkaMessage(ce);
