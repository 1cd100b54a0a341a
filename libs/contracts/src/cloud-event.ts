/**
 * The envelope every event of the seat API shares: a CloudEvents 1.0 event in structured JSON mode, whose
 * `source` is the show, and its Kafka record, keyed by the show (one show's changes stay in order on one
 * partition) with the CloudEvents Kafka binding's headers, so a consumer routes by `ce_type` without
 * parsing the value. Each contract gives its own type, id, subject and data.
 */
export interface CloudEvent<T extends string, D extends { eventId: string }> {
  specversion: '1.0';
  /** Names the change, not the record that carried it (each contract's id rule). */
  id: string;
  /** `/seat-hold/events/<eventId>`: the show (showSource). */
  source: string;
  type: T;
  /** When the change was made (ISO 8601, Redis time). */
  time: string;
  datacontenttype: 'application/json';
  subject: string;
  data: D;
}

/** CloudEvents `source`: the show whose seats changed. */
export function showSource(eventId: string): string {
  return `/seat-hold/events/${eventId}`;
}

/** The event of one change: `at` is when it was made (`time`). */
export function cloudEvent<T extends string, D extends { eventId: string }>(
  type: T,
  id: string,
  subject: string,
  data: D,
  at: Date,
): CloudEvent<T, D> {
  return {
    specversion: '1.0',
    id,
    source: showSource(data.eventId),
    type,
    time: at.toISOString(),
    datacontenttype: 'application/json',
    subject,
    data,
  };
}

/** The Kafka record of an event: the show as key, the structured-mode value, the binding's headers. */
export function cloudEventKafkaMessage(ce: CloudEvent<string, { eventId: string }>): {
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
