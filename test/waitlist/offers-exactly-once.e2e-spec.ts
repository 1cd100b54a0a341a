/**
 * Offers exactly once in effect, on a real broker with two apps/waitlist processes in one consumer group,
 * the real seat API, PostgreSQL and Redis. The freed changes are published as the seat API's relay does
 * (the contract's ids: a copy of a change has the change's id). In every case: no seat is offered to two
 * entries, no entry gets two offers, and no freed seat stays unoffered while a fitting entry waits.
 *
 * - a change delivered twice makes its offers once;
 * - a consumer killed (SIGKILL) after its offers committed but before its offset commit: the other
 *   consumer reads the change again and makes no new offer (it announces the same one again, same id);
 * - a consumer killed after the offer's hold was made but before its transaction committed: the other
 *   consumer gets that same hold back from the seat API (the Idempotency-Key) and makes it the offer.
 */
import { Admin, Kafka, logLevel, Producer } from 'kafkajs';
import { holdReleasedEvent, seatStatusKafkaMessage } from '@app/contracts';
import { Db, openDb } from '../support/db';
import { eventually } from '../support/eventually';
import { TopicProbe } from '../support/kafka-probe';
import { Api, createEvent, startApi } from '../support/seat-api';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { startWaitlistProcess, WaitlistProcess } from './waitlist-process';

jest.setTimeout(240_000);

const topic = process.env.KAFKA_TOPIC_SEAT_STATUS!;
const group = `waitlist.${process.env.TEST_FILE_ID}.${process.env.TEST_RUN_ID ?? 'adhoc'}`;
let api: Api;
let db: Db;
let kafka: Kafka;
let producer: Producer;
let admin: Admin;
let probe: TopicProbe;
const running: WaitlistProcess[] = [];
const proxies: TcpProxy[] = [];

beforeAll(async () => {
  api = await startApi();
  db = await openDb();
  kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  producer = kafka.producer();
  admin = kafka.admin();
  await Promise.all([producer.connect(), admin.connect()]);
  probe = await TopicProbe.start(topic);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});
afterAll(async () => {
  await Promise.all([producer?.disconnect(), admin?.disconnect(), probe?.stop()]);
  await api?.close();
  await db?.close();
});

async function consumer(databaseUrl = process.env.DATABASE_URL!): Promise<WaitlistProcess> {
  const p = await startWaitlistProcess({
    DATABASE_URL: databaseUrl,
    WAITLIST_CONSUMER_GROUP: group,
    WAITLIST_SEAT_API_URL: api.base,
    WAITLIST_SESSION_TIMEOUT_MS: '6000',
    WAITLIST_OFFER_TTL_SECONDS: '600',
  });
  running.push(p);
  return p;
}

/** A show of `seats` seats in one row, all held by a buyer: sold out. Returns the buyer's hold. */
async function soldOut(seats: number): Promise<{ eventId: string; holdId: string; seatIds: string[] }> {
  const eventId = await createEvent(api, 1, seats);
  const seatIds = Array.from({ length: seats }, (_, i) => `S-A-${i + 1}`);
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await api.token('buyer'),
    body: { seatIds, ttlSeconds: 600 },
  });
  expect(r.status).toBe(201);
  return { eventId, holdId: r.body.holdId, seatIds };
}

async function join(eventId: string, user: string, quantity: number): Promise<string> {
  const r = await api.call('POST', `/v1/events/${eventId}/waitlist`, {
    token: await api.token(user),
    body: { quantity },
  });
  expect(r.status).toBe(201);
  return r.body.entryId;
}

/** The buyer lets the seats go, and the change is on seat.status as the seat API's relay publishes it. */
async function release(show: { eventId: string; holdId: string; seatIds: string[] }, copies = 1) {
  const r = await api.call('DELETE', `/v1/holds/${show.holdId}`, { token: await api.token('buyer') });
  expect(r.status).toBe(204);
  const ce = holdReleasedEvent(
    {
      eventId: show.eventId,
      holdId: show.holdId,
      userId: 'buyer',
      seatIds: show.seatIds,
      reason: 'RELEASED',
    },
    new Date(),
  );
  for (let i = 0; i < copies; i++) {
    await producer.send({ topic, acks: -1, messages: [seatStatusKafkaMessage(ce)] });
  }
  return ce.id;
}

/** Every message of the topic is behind the group's committed offsets. */
async function drained(): Promise<boolean> {
  const [ends, [committed]] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId: group, topics: [topic] }),
  ]);
  return ends.every((e) => {
    const c = committed.partitions.find((p) => p.partition === e.partition);
    return (
      BigInt(e.high) === 0n || (c !== undefined && c.offset !== '-1' && BigInt(c.offset) >= BigInt(e.high))
    );
  });
}

interface EntryRow {
  id: string;
  user_id: string;
  status: string;
  hold_id: string | null;
}
const entries = (eventId: string) =>
  db.rows<EntryRow>(
    `SELECT id, user_id, status, hold_id FROM waitlist_entries WHERE event_id = $1 ORDER BY created_at, id`,
    [eventId],
  );
const offersOf = (source: string) =>
  db.rows<{ entry_id: string; hold_id: string; seat_ids: string[]; published_at: Date | null }>(
    `SELECT entry_id, hold_id, seat_ids, published_at FROM waitlist_offers WHERE source_event_id = $1`,
    [source],
  );

/** The user's live holds on the show, as staff see them. */
async function liveHolds(eventId: string, user: string): Promise<{ holdId: string; seatIds: string[] }[]> {
  const r = await api.call('GET', `/v1/events/${eventId}/holds?userId=${user}&status=ACTIVE`, {
    token: await api.token('admin-1', ['admin']),
  });
  expect(r.status).toBe(200);
  return r.body.items;
}

/** The WaitlistOfferMade announcements of a show, by id (a copy published again has the same id). */
const announced = (eventId: string) =>
  new Set(
    probe
      .values<{ id: string; type: string; data: { eventId: string } }>()
      .filter((ce) => ce.type === 'WaitlistOfferMade' && ce.data.eventId === eventId)
      .map((ce) => ce.id),
  );

it('a change delivered twice makes its offers once: each freed seat to one entry, each entry one offer', async () => {
  await consumer();
  await consumer();
  const show = await soldOut(4);
  const [first, second, third] = [
    await join(show.eventId, 'wl-a1', 2),
    await join(show.eventId, 'wl-a2', 2),
    await join(show.eventId, 'wl-a3', 1),
  ];
  const source = await release(show, 2);

  await eventually(
    async () => (await offersOf(source)).length === 2 && (await drained()),
    60_000,
    'both copies consumed and the seats offered',
  );
  const rows = await entries(show.eventId);
  expect(rows.map((e) => [e.id, e.status])).toEqual([
    [first, 'OFFERED'],
    [second, 'OFFERED'],
    [third, 'WAITING'], // nothing left for them: every freed seat is offered to the first two
  ]);
  const offers = await offersOf(source);
  expect(offers.flatMap((o) => o.seat_ids).sort()).toEqual(show.seatIds); // each seat once
  for (const user of ['wl-a1', 'wl-a2']) {
    const holds = await liveHolds(show.eventId, user);
    expect(holds).toHaveLength(1);
    expect(rows.find((e) => e.user_id === user)!.hold_id).toBe(holds[0].holdId);
  }
  expect(await liveHolds(show.eventId, 'wl-a3')).toEqual([]);
  await eventually(() => announced(show.eventId).size === 2, 30_000, 'both offers announced');
});

it('a consumer killed after its offer committed, before its offset commit: the other makes no second offer', async () => {
  const pg = new URL(process.env.DATABASE_URL!);
  const proxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  proxies.push(proxy);
  const doomed = await consumer(proxy.urlFor(process.env.DATABASE_URL!));
  const show = await soldOut(2);
  const first = await join(show.eventId, 'wl-b1', 2);
  await join(show.eventId, 'wl-b2', 2);

  // the offer is committed and announced; the statement after that (recording the announcement, then the
  // offset commit) never gets out: the process is stuck exactly there when it is killed
  const stuck = proxy.freezeOn('SET published_at');
  const source = await release(show);
  await stuck;
  expect((await entries(show.eventId)).map((e) => e.status)).toEqual(['OFFERED', 'WAITING']);
  const [offer] = await offersOf(source);
  await doomed.kill();
  expect(await drained()).toBe(false); // the change is still to be read by the group

  await consumer(); // the survivor: gets the partition once the killed member's session ends
  await eventually(drained, 90_000, 'the change read again and its offset committed');

  const rows = await entries(show.eventId);
  expect(rows.map((e) => [e.id, e.status, e.hold_id])).toEqual([
    [first, 'OFFERED', offer.hold_id],
    [rows[1].id, 'WAITING', null],
  ]);
  expect(await offersOf(source)).toEqual([
    expect.objectContaining({ entry_id: first, hold_id: offer.hold_id }),
  ]);
  expect((await offersOf(source))[0].published_at).not.toBeNull();
  expect(await liveHolds(show.eventId, 'wl-b1')).toEqual([
    expect.objectContaining({ holdId: offer.hold_id }),
  ]);
  expect(await liveHolds(show.eventId, 'wl-b2')).toEqual([]);
  await eventually(() => announced(show.eventId).size === 1, 30_000, 'the offer announced');
});

it('a consumer killed after making the hold, before its transaction committed: the other makes that hold the offer', async () => {
  const pg = new URL(process.env.DATABASE_URL!);
  const proxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  proxies.push(proxy);
  const doomed = await consumer(proxy.urlFor(process.env.DATABASE_URL!));
  const show = await soldOut(3);
  const first = await join(show.eventId, 'wl-c1', 3);
  await join(show.eventId, 'wl-c2', 3);

  // the seat API made the hold for wl-c1; the transaction's COMMIT never reaches PostgreSQL
  const stuck = proxy.freezeOn('COMMIT');
  const source = await release(show);
  await stuck;
  const orphan = await liveHolds(show.eventId, 'wl-c1');
  expect(orphan).toHaveLength(1);
  await doomed.kill(); // PostgreSQL rolls the transaction back: no offer row, the entry still WAITING
  await eventually(
    async () =>
      (await entries(show.eventId))[0].status === 'WAITING' && (await offersOf(source)).length === 0,
    30_000,
    'the killed transaction rolled back',
  );

  await consumer();
  await eventually(drained, 90_000, 'the change read again and its offset committed');

  const rows = await entries(show.eventId);
  expect(rows.map((e) => [e.id, e.status, e.hold_id])).toEqual([
    [first, 'OFFERED', orphan[0].holdId], // the same hold, not a second one
    [rows[1].id, 'WAITING', null],
  ]);
  expect(await liveHolds(show.eventId, 'wl-c1')).toEqual([
    expect.objectContaining({ holdId: orphan[0].holdId }),
  ]);
  expect(await liveHolds(show.eventId, 'wl-c2')).toEqual([]);
  expect(await offersOf(source)).toHaveLength(1);
});
