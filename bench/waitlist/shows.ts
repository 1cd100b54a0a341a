/**
 * What bench:waitlist sets up and reads: sold-out shows with waiting entries whose seats are then released
 * through the seat API (so they are free to offer), and a reader of the seat.status topic that keeps each
 * record's Kafka timestamp (the topic appends with the broker's clock: LogAppendTime).
 */
import { Kafka } from 'kafkajs';
import { holdReleasedEvent, seatStatusKafkaMessage } from '@app/contracts';
import { BenchService, signBenchToken } from '../support/service';

export interface FreedSeat {
  eventId: string;
  holdId: string;
  seatId: string;
  buyer: string;
}

export interface Show {
  eventId: string;
  /** one hold per seat, so each seat is freed by its own message */
  seats: FreedSeat[];
}

/** Runs `fn` over `items`, `width` at a time. */
export async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        await fn(items[next++]);
      }
    }),
  );
}

async function call(base: string, token: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) {
    throw new Error(`${method} ${url}: ${res.status} ${text}`);
  }
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

let users = 0;

/**
 * `count` shows of `seats` seats, each seat held by its own buyer, then `entries` waiting entries of one
 * seat per show, then every hold released: the seats are free, and the bench publishes their release.
 */
export async function soldOutShows(
  svc: BenchService,
  count: number,
  seats: number,
  entries: number,
): Promise<Show[]> {
  const shows: Show[] = [];
  for (let s = 0; s < count; s++) {
    shows.push({ eventId: await svc.createEvent(seats), seats: [] });
  }
  const asks = shows.flatMap((show) => Array.from({ length: seats }, (_, i) => ({ show, i })));
  await pool(asks, 16, async ({ show, i }) => {
    const buyer = `buyer-${users++}`;
    const seatId = `S-R1-${i + 1}`;
    const hold = await call(
      svc.base,
      await signBenchToken(buyer, []),
      'POST',
      `/v1/events/${show.eventId}/holds`,
      {
        seatIds: [seatId],
        ttlSeconds: 600,
      },
    );
    show.seats.push({ eventId: show.eventId, holdId: String(hold.holdId), seatId, buyer });
  });
  // one show at a time, its entries in order: the queue is (created_at, id)
  await pool(shows, 16, async (show) => {
    for (let e = 0; e < entries; e++) {
      const token = await signBenchToken(`waiter-${users++}`, []);
      await call(svc.base, token, 'POST', `/v1/events/${show.eventId}/waitlist`, { quantity: 1 });
    }
  });
  await pool(
    shows.flatMap((s) => s.seats),
    16,
    async (seat) => {
      await call(svc.base, await signBenchToken(seat.buyer, []), 'DELETE', `/v1/holds/${seat.holdId}`);
    },
  );
  return shows;
}

/** The release of one seat as the seat API's relay publishes it (HoldReleased, keyed by the show). */
export const releaseMessage = (seat: FreedSeat) =>
  seatStatusKafkaMessage(
    holdReleasedEvent(
      {
        eventId: seat.eventId,
        holdId: seat.holdId,
        userId: seat.buyer,
        seatIds: [seat.seatId],
        reason: 'RELEASED',
      },
      new Date(),
    ),
  );

export async function createAppendTimeTopic(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [
        {
          topic,
          numPartitions: partitions,
          replicationFactor: -1,
          configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }],
        },
      ],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
}

export interface TopicRecord {
  type: string;
  id: string;
  holdId?: string;
  /** Kafka's append time of the record */
  at: number;
}

/** Reads every record of `topic` from the beginning, as they come, into `records`. */
export async function topicReader(kafka: Kafka, topic: string) {
  const records: TopicRecord[] = [];
  const consumer = kafka.consumer({ groupId: `${topic}.bench-reader`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: ({ message }) => {
      const ce = JSON.parse(message.value!.toString()) as {
        type: string;
        id: string;
        data: { holdId?: string };
      };
      records.push({ type: ce.type, id: ce.id, holdId: ce.data.holdId, at: Number(message.timestamp) });
      return Promise.resolve();
    },
  });
  return { records, stop: () => consumer.disconnect() };
}
