/**
 * Places of a general-admission area running out, end to end on real Redis, PostgreSQL and Kafka: the
 * sweeper gives them back to the area in the step that records the change; seat.expired carries one
 * SeatExpired per area (seatId the area, with `area` and `quantity`, valid for a reader of seats alone);
 * seat.status tells the hold's places; the expiry consumer records the area and quantity; and a hold that
 * finds an area short expires the lapsed holds on it at once, whether or not the sweeper ran.
 */
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { parseSeatExpired, parseSeatStatus } from '@app/contracts';
import { startExpiryConsumer } from '../../apps/expiry-consumer/src/create-consumer';
import { eventually, TopicProbe } from '@test/support/kafka-probe';
import { Api, createEventWithFloor, startApi } from '@test/support/seat-api';

jest.setTimeout(120_000);

let api: Api;
let consumer: NestFastifyApplication;
let expired: TopicProbe;
let status: TopicProbe;
let pg: Client;
let admin: string;

/** Seats S-A-1..4 and an area FLOOR of `capacity` places. */
const showWithFloor = (capacity: number) => createEventWithFloor(api, capacity);

const floorOf = async (eventId: string) =>
  (await api.call('GET', `/v1/events/${eventId}`, { token: admin })).body.areas[0] as {
    free: number;
    held: number;
  };

describe('with the sweeper', () => {
  beforeAll(async () => {
    api = await startApi({
      SWEEPER_ENABLED: 'true',
      HOLD_MIN_TTL_SECONDS: '1',
      SWEEP_INTERVAL_MS: '200',
      OUTBOX_RELAY_INTERVAL_MS: '100',
    });
    consumer = await startExpiryConsumer(0);
    expired = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_EXPIRED!);
    status = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_STATUS!);
    pg = new Client({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    admin = await api.token('root', ['admin']);
  });
  afterAll(async () => {
    await expired?.stop();
    await status?.stop();
    await consumer?.close();
    await api?.close();
    await pg?.end();
  });

  it('a 1 s hold of places and a seat runs out: the area gets its places back, each expiry is told once', async () => {
    const eventId = await showWithFloor(10);
    const alice = await api.token('alice');
    const h = (
      await api.call('POST', `/v1/events/${eventId}/holds`, {
        token: alice,
        body: { seatIds: ['S-A-1'], places: [{ area: 'FLOOR', quantity: 2 }], ttlSeconds: 1 },
      })
    ).body;
    expect(h.places).toEqual([{ area: 'FLOOR', quantity: 2 }]);
    await eventually(async () => (await floorOf(eventId)).free === 10, 10_000, 'places back in the area');
    expect(await floorOf(eventId)).toMatchObject({ free: 10, held: 0 });

    await eventually(
      () => expired.values().filter((v) => v.data.holdId === h.holdId).length === 2,
      10_000,
      'two SeatExpired on seat.expired',
    );
    const mine = expired.values().filter((v) => v.data.holdId === h.holdId);
    const place = mine.find((v) => v.data.seatId === 'FLOOR')!;
    expect(place.id).toBe(`${h.holdId}:FLOOR`);
    expect(place.data).toMatchObject({
      eventId,
      seatId: 'FLOOR',
      area: 'FLOOR',
      quantity: 2,
      userId: 'alice',
    });
    // the seat's message is as it always was
    expect(mine.find((v) => v.data.seatId === 'S-A-1')!.data).not.toHaveProperty('area');
    // both are valid SeatExpired messages for a reader that knows nothing of areas
    for (const m of mine) {
      expect(parseSeatExpired(JSON.stringify(m)).data.holdId).toBe(h.holdId);
    }

    await eventually(
      () => status.values().some((v) => v.type === 'HoldCreated' && v.data.holdId === h.holdId),
      10_000,
      'HoldCreated on seat.status',
    );
    const created = status.values().find((v) => v.type === 'HoldCreated' && v.data.holdId === h.holdId)!;
    expect(created.data).toMatchObject({ seatIds: ['S-A-1'], places: [{ area: 'FLOOR', quantity: 2 }] });
    expect(parseSeatStatus(JSON.stringify(created)).type).toBe('HoldCreated');

    await eventually(
      async () =>
        (
          await pg.query(
            `SELECT count(*)::int AS n FROM ${process.env.DATABASE_SCHEMA}.hold_expiries WHERE hold_id = $1`,
            [h.holdId],
          )
        ).rows[0].n === 2,
      10_000,
      'two history rows',
    );
    const rows = (
      await pg.query(
        `SELECT seat_id, area, quantity FROM ${process.env.DATABASE_SCHEMA}.hold_expiries WHERE hold_id = $1 ORDER BY seat_id`,
        [h.holdId],
      )
    ).rows;
    expect(rows).toEqual([
      { seat_id: 'FLOOR', area: 'FLOOR', quantity: 2 },
      { seat_id: 'S-A-1', area: null, quantity: null },
    ]);
    const list = await api.call('GET', `/v1/events/${eventId}/expirations`, { token: admin });
    expect(list.body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ seatId: 'FLOOR', area: 'FLOOR', quantity: 2 })]),
    );
  });
});

describe('without the sweeper', () => {
  beforeAll(async () => {
    api = await startApi({ SWEEPER_ENABLED: 'false', HOLD_MIN_TTL_SECONDS: '1' });
    admin = await api.token('root', ['admin']);
  });
  afterAll(() => api?.close());

  it('a hold that finds the area short expires the lapsed holds on it in its own step', async () => {
    const eventId = await showWithFloor(3);
    const [ann, bob] = [await api.token('ann'), await api.token('bob')];
    const first = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: ann,
      body: { places: [{ area: 'FLOOR', quantity: 3 }], ttlSeconds: 1 },
    });
    expect(first.status).toBe(201);
    // no sweeper: the lapsed hold still counts as held until a hold needs its places; until its second
    // has passed by Redis time the area is short, after it the new hold expires it and takes them
    const refusals: unknown[] = [];
    let second = { status: 0, body: {} as Record<string, unknown> };
    await eventually(
      async () => {
        second = await api.call('POST', `/v1/events/${eventId}/holds`, {
          token: bob,
          body: { places: [{ area: 'FLOOR', quantity: 2 }] },
        });
        if (second.status === 409) {
          refusals.push(second.body.errors);
        }
        return second.status !== 409;
      },
      10_000,
      'a hold of the lapsed places',
    );
    expect(refusals.every((e) => JSON.stringify(e) === JSON.stringify([{ area: 'FLOOR', free: 0 }]))).toBe(
      true,
    );
    expect(second.status).toBe(201);
    expect(await floorOf(eventId)).toMatchObject({ free: 1, held: 2 });
    const read = await api.call('GET', `/v1/holds/${first.body.holdId}`, { token: ann });
    expect(read.body.status).toBe('EXPIRED');
  });
});
