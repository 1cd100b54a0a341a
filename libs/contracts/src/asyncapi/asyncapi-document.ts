/**
 * The AsyncAPI 3 document of the topics the seat API publishes, built from the contracts themselves (their
 * types, ids and JSON schemas), so the document cannot say other than what is published. docs/asyncapi.yaml
 * is this document written out (npm run asyncapi, checked fresh by its spec); the seat API serves it at
 * /docs/asyncapi beside the OpenAPI page.
 */
import { SEAT_EXPIRED_TOPIC, SEAT_EXPIRED_TYPE } from '../seat-expired/seat-expired.event';
import {
  SEAT_STATUS_TOPIC,
  SEAT_STATUS_TOPIC_ENV,
  SEAT_STATUS_TYPES,
} from '../seat-status/seat-status.event';
import { SEAT_STATUS_SCHEMAS } from '../seat-status/seat-status.schema';

type Doc = Record<string, unknown>;

/** The messages of seat.expired: SeatExpired alone, as its consumers have always read it. */
const SEAT_EXPIRED_MESSAGES = [SEAT_EXPIRED_TYPE] as const;

const ref = (path: string) => ({ $ref: path });

function message(type: string): Doc {
  const schema = SEAT_STATUS_SCHEMAS[type as keyof typeof SEAT_STATUS_SCHEMAS];
  return {
    name: type,
    title: schema.title,
    summary: schema.description,
    contentType: 'application/cloudevents+json; charset=UTF-8',
    headers: {
      type: 'object',
      required: ['ce_type', 'ce_id'],
      properties: {
        'content-type': { const: 'application/cloudevents+json; charset=UTF-8' },
        ce_type: { const: type },
        ce_id: { type: 'string', description: 'The CloudEvent id (the change it names).' },
      },
    },
    payload: ref(`#/components/schemas/${type}`),
    bindings: {
      kafka: {
        key: {
          type: 'string',
          description: 'The show (event id): one show\u2019s messages on one partition, in order.',
        },
        bindingVersion: '0.5.0',
      },
    },
  };
}

function channel(address: string, description: string, types: readonly string[]): Doc {
  return {
    address,
    description,
    messages: Object.fromEntries(types.map((t) => [t, ref(`#/components/messages/${t}`)])),
  };
}

function operation(channelName: string, types: readonly string[], summary: string): Doc {
  return {
    action: 'send',
    summary,
    channel: ref(`#/channels/${channelName}`),
    messages: types.map((t) => ref(`#/channels/${channelName}/messages/${t}`)),
  };
}

export function asyncApiDocument(): Doc {
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Seat-hold reservation service: events',
      version: '1',
      description:
        'CloudEvents 1.0 in structured JSON mode, keyed by the show (event id). Delivery is at least once: ' +
        'a message may come twice, always with the same id (the id names the change), so a consumer drops ' +
        'copies by id. One show\u2019s messages are in the order its changes were made. A consumer skips a ' +
        'type it does not handle.',
    },
    defaultContentType: 'application/cloudevents+json; charset=UTF-8',
    servers: {
      kafka: { host: '127.0.0.1:9092', protocol: 'kafka', description: 'KAFKA_BROKERS' },
    },
    channels: {
      seatStatus: channel(
        SEAT_STATUS_TOPIC,
        `Every change of a seat\u2019s state (topic name: ${SEAT_STATUS_TOPIC_ENV}). Hold-level changes are ` +
          'one message per hold (data.seatIds); an expiry is one SeatExpired per seat, the message ' +
          'seat.expired carries.',
        SEAT_STATUS_TYPES,
      ),
      seatExpired: channel(
        SEAT_EXPIRED_TOPIC,
        'Seats freed by expiry, one SeatExpired per seat (KAFKA_TOPIC_SEAT_EXPIRED); every other seat ' +
          'change, a cancelled booking included, is on seat.status only.',
        SEAT_EXPIRED_MESSAGES,
      ),
    },
    operations: {
      publishSeatStatus: operation(
        'seatStatus',
        SEAT_STATUS_TYPES,
        'The seat API publishes every seat change.',
      ),
      publishSeatExpired: operation('seatExpired', SEAT_EXPIRED_MESSAGES, 'The seat API publishes expiries.'),
    },
    components: {
      messages: Object.fromEntries(SEAT_STATUS_TYPES.map((t) => [t, message(t)])),
      schemas: SEAT_STATUS_SCHEMAS,
    },
  };
}
