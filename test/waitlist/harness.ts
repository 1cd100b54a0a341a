/**
 * What the waiting-list tests share: the real seat API in process, apps/waitlist as child processes in one
 * consumer group, and seat.status changes published as the seat API's relay publishes them (the
 * contract's event builders and ids, keyed by the show).
 */
import { Admin, Kafka, logLevel, Producer } from 'kafkajs';
import {
  holdConfirmedEvent,
  holdReleasedEvent,
  seatStatusKafkaMessage,
  SeatStatusCloudEvent,
} from '@app/contracts';
import { Db, openDb } from '../support/db';
import { TopicProbe } from '../support/kafka-probe';
import { Api, createEvent, startApi } from '../support/seat-api';
import { startWaitlistProcess, WaitlistProcess } from './waitlist-process';

export interface Show {
  eventId: string;
  holdId: string;
  seatIds: string[];
}

export interface EntryRow {
  id: string;
  user_id: string;
  status: string;
  hold_id: string | null;
}

export class WaitlistHarness {
  readonly topic = process.env.KAFKA_TOPIC_SEAT_STATUS!;
  readonly group = `waitlist.${process.env.TEST_RUN_ID ?? 'adhoc'}.${process.env.TEST_FILE_ID}`;
  private readonly running: WaitlistProcess[] = [];

  private constructor(
    readonly api: Api,
    readonly db: Db,
    private readonly producer: Producer,
    private readonly admin: Admin,
    readonly probe: TopicProbe,
  ) {}

  /** `env`: the seat API's variables (SWEEPER_ENABLED=true runs its relay, which publishes seat.status). */
  static async start(env: Record<string, string> = {}): Promise<WaitlistHarness> {
    const api = await startApi(env);
    const db = await openDb();
    const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    const admin = kafka.admin();
    await Promise.all([producer.connect(), admin.connect()]);
    const probe = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_STATUS!);
    return new WaitlistHarness(api, db, producer, admin, probe);
  }

  /**
   * An apps/waitlist instance of this file's group; `databaseUrl`, `seatApiUrl` to put a proxy in its way to
   * PostgreSQL or to the seat API.
   */
  async consumer(
    databaseUrl = process.env.DATABASE_URL!,
    seatApiUrl = this.api.base,
  ): Promise<WaitlistProcess> {
    const p = await startWaitlistProcess({
      DATABASE_URL: databaseUrl,
      WAITLIST_CONSUMER_GROUP: this.group,
      WAITLIST_SEAT_API_URL: seatApiUrl,
      WAITLIST_SESSION_TIMEOUT_MS: '6000',
      WAITLIST_OFFER_TTL_SECONDS: '600',
    });
    this.running.push(p);
    return p;
  }

  async stopConsumers(): Promise<void> {
    await Promise.all(this.running.splice(0).map((p) => p.stop()));
  }

  async close(): Promise<void> {
    await this.stopConsumers();
    await Promise.all([this.producer.disconnect(), this.admin.disconnect(), this.probe.stop()]);
    await this.api.close();
    await this.db.close();
  }

  /** A show of `seats` seats in one row, all held by a buyer: sold out. */
  async soldOut(seats: number): Promise<Show> {
    const eventId = await createEvent(this.api, 1, seats);
    const seatIds = Array.from({ length: seats }, (_, i) => `S-A-${i + 1}`);
    const r = await this.api.call('POST', `/v1/events/${eventId}/holds`, {
      token: await this.api.token('buyer'),
      body: { seatIds, ttlSeconds: 600 },
    });
    expect(r.status).toBe(201);
    return { eventId, holdId: r.body.holdId, seatIds };
  }

  async join(eventId: string, user: string, quantity: number): Promise<string> {
    const r = await this.api.call('POST', `/v1/events/${eventId}/waitlist`, {
      token: await this.api.token(user),
      body: { quantity },
    });
    expect(r.status).toBe(201);
    return r.body.entryId;
  }

  /** `user` releases the hold through the seat API, and the change is published `copies` times. */
  async release(user: string, hold: Show, copies = 1): Promise<string> {
    const r = await this.api.call('DELETE', `/v1/holds/${hold.holdId}`, {
      token: await this.api.token(user),
    });
    expect(r.status).toBe(204);
    return this.publish(
      holdReleasedEvent(
        {
          eventId: hold.eventId,
          holdId: hold.holdId,
          userId: user,
          seatIds: hold.seatIds,
          reason: 'RELEASED',
        },
        new Date(),
      ),
      copies,
    );
  }

  /** `user` books the hold through the seat API, and the change is published. */
  async confirm(user: string, hold: Show): Promise<void> {
    const orderId = `order-${hold.holdId.slice(0, 12)}`;
    const r = await this.api.call('POST', `/v1/holds/${hold.holdId}/confirm`, {
      token: await this.api.token(user),
      body: { orderId },
    });
    expect(r.status).toBe(201);
    await this.publish(
      holdConfirmedEvent(
        { eventId: hold.eventId, holdId: hold.holdId, userId: user, seatIds: hold.seatIds, orderId },
        new Date(),
      ),
    );
  }

  async publish(ce: SeatStatusCloudEvent, copies = 1): Promise<string> {
    for (let i = 0; i < copies; i++) {
      await this.producer.send({ topic: this.topic, acks: -1, messages: [seatStatusKafkaMessage(ce)] });
    }
    return ce.id;
  }

  /** The consumer group's state, as the broker's coordinator has it (Stable, PreparingRebalance, ...). */
  async groupState(): Promise<string> {
    const { groups } = await this.admin.describeGroups([this.group]);
    return groups[0]?.state ?? 'Unknown';
  }

  /** Every message of the topic is behind the group's committed offsets. */
  async drained(): Promise<boolean> {
    const [ends, [committed]] = await Promise.all([
      this.admin.fetchTopicOffsets(this.topic),
      this.admin.fetchOffsets({ groupId: this.group, topics: [this.topic] }),
    ]);
    return ends.every((e) => {
      const c = committed.partitions.find((p) => p.partition === e.partition);
      return (
        BigInt(e.high) === 0n || (c !== undefined && c.offset !== '-1' && BigInt(c.offset) >= BigInt(e.high))
      );
    });
  }

  entries(eventId: string): Promise<EntryRow[]> {
    return this.db.rows<EntryRow>(
      `SELECT id, user_id, status, hold_id FROM waitlist_entries WHERE event_id = $1 ORDER BY created_at, id`,
      [eventId],
    );
  }

  offersOf(source: string) {
    return this.db.rows<{ entry_id: string; hold_id: string; seat_ids: string[]; published_at: Date | null }>(
      `SELECT entry_id, hold_id, seat_ids, published_at FROM waitlist_offers WHERE source_event_id = $1`,
      [source],
    );
  }

  /** The user's live holds on the show, as staff see them. */
  async liveHolds(eventId: string, user: string): Promise<{ holdId: string; seatIds: string[] }[]> {
    const r = await this.api.call('GET', `/v1/events/${eventId}/holds?userId=${user}&status=ACTIVE`, {
      token: await this.api.token('admin-1', ['admin']),
    });
    expect(r.status).toBe(200);
    return r.body.items;
  }

  /** The WaitlistOfferMade announcements of a show, by id (a copy published again has the same id). */
  announced(eventId: string): Set<string> {
    return new Set(
      this.probe
        .values<{ id: string; type: string; data: { eventId: string } }>()
        .filter((ce) => ce.type === 'WaitlistOfferMade' && ce.data.eventId === eventId)
        .map((ce) => ce.id),
    );
  }
}
