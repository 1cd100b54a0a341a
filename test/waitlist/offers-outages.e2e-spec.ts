/**
 * Offers exactly once in effect through outages, with two apps/waitlist processes in one consumer group on
 * a private broker (stopped and started here; the shared one is never touched), fed by the seat API's own
 * relay: every freed change reaches seat.status the way production publishes it, nothing is published by
 * the test. In every case: no seat is offered to two entries, no entry gets two offers, no freed seat stays
 * unoffered while a fitting entry waits, and every hold made for an offer is its entry's offer.
 *
 * - Kafka down for 30 s while seats are freed: the changes wait in the outbox, the consumers ride the
 *   outage out, and once the broker is back every fitting entry gets its one offer;
 * - PostgreSQL gone silent for the app in the middle of an offer (its hold made, its rows not written),
 *   long enough for PostgreSQL to end the transaction: once the link is back the processes recover by
 *   themselves and the offer is made once, with the hold made before, so no hold is left without its entry.
 */
import { PrivateKafka } from '../support/private-kafka';
import { eventually } from '../support/eventually';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { Show, WaitlistHarness } from './harness';

jest.setTimeout(300_000);

/** How long the broker stays down: longer than the consumers' session timeout and their retries. */
const KAFKA_DOWN_MS = 30_000;

let kafka: PrivateKafka;
let h: WaitlistHarness;
let proxy: TcpProxy | undefined;

beforeAll(async () => {
  kafka = await PrivateKafka.start();
  h = await WaitlistHarness.start({
    KAFKA_BROKERS: kafka.brokers, // the seat API's relay, the harness and the consumers (they inherit it)
    SWEEPER_ENABLED: 'true',
    SWEEP_INTERVAL_MS: '200',
    OUTBOX_RELAY_INTERVAL_MS: '100',
    RATE_LIMIT_ENABLED: 'false',
  });
});
afterEach(async () => {
  await h.stopConsumers();
  proxy?.thaw();
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => {
  await h?.close();
  await kafka?.destroy();
});

/** The buyer gives the show's seats back through the seat API; its relay publishes the change. */
async function release(show: Show): Promise<string> {
  const r = await h.api.call('DELETE', `/v1/holds/${show.holdId}`, { token: await h.api.token('buyer') });
  expect(r.status).toBe(204);
  return `${show.holdId}:released`; // the change's CloudEvent id (holdReleasedId)
}

/**
 * A show's outcome: the first `offered` users OFFERED, each with one live hold that is their entry's, the
 * freed seats each in exactly one offer of the change; the others WAITING with no hold.
 */
async function expectOffered(show: Show, source: string, users: string[], offered: number): Promise<void> {
  const rows = await h.entries(show.eventId);
  expect(rows.map((e) => [e.user_id, e.status])).toEqual(
    users.map((u, i) => [u, i < offered ? 'OFFERED' : 'WAITING']),
  );
  const offers = await h.offersOf(source);
  expect(offers).toHaveLength(offered);
  expect(offers.flatMap((o) => o.seat_ids).sort()).toEqual([...show.seatIds].sort()); // each seat once
  for (const [i, user] of users.entries()) {
    const holds = await h.liveHolds(show.eventId, user);
    if (i < offered) {
      expect(holds).toHaveLength(1);
      expect(rows[i].hold_id).toBe(holds[0].holdId);
      expect(offers.find((o) => o.entry_id === rows[i].id)?.hold_id).toBe(holds[0].holdId);
    } else {
      expect(holds).toEqual([]);
    }
  }
}

it('Kafka down for 30 s while seats are freed: once it is back every fitting entry gets exactly one offer, no seat in two', async () => {
  const consumers = [await h.consumer(), await h.consumer()];
  const shows: { show: Show; users: string[] }[] = [];
  for (let i = 0; i < 4; i++) {
    const show = await h.soldOut(2);
    const users = [`wl-k${i}-a`, `wl-k${i}-b`, `wl-k${i}-c`]; // two seats, three parties of one: c waits
    for (const user of users) {
      await h.join(show.eventId, user, 1);
    }
    shows.push({ show, users });
  }

  const down = Date.now();
  await kafka.down();
  let sources: string[];
  try {
    sources = [];
    for (const { show } of shows) {
      sources.push(await release(show)); // the seat API frees the seats with Kafka away
    }
    // the outage lasts its full length, whatever the releases took: this is the fault, not a wait for state
    await new Promise((r) => setTimeout(r, Math.max(0, KAFKA_DOWN_MS - (Date.now() - down))));
    for (const { show } of shows) {
      // nobody could read the changes: nothing offered yet
      expect((await h.entries(show.eventId)).map((e) => e.status)).toEqual(['WAITING', 'WAITING', 'WAITING']);
    }
  } finally {
    await kafka.up(); // also when an assertion failed: the next test needs the broker
  }

  await eventually(
    async () => {
      for (const source of sources) {
        if ((await h.offersOf(source)).length < 2) {
          return false;
        }
      }
      return h.drained().catch(() => false); // the admin client may still be reconnecting
    },
    120_000,
    'every change read after the outage and its offers made',
  );
  for (const c of consumers) {
    expect(c.child.exitCode).toBeNull(); // both rode the outage out
  }
  for (const [i, { show, users }] of shows.entries()) {
    await expectOffered(show, sources[i], users, 2);
  }
});

it('PostgreSQL silent in the middle of an offer, its transaction lost: the offer is finished with the same hold, once, nothing left over', async () => {
  const pg = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  const consumers = [
    await h.consumer(proxy.urlFor(process.env.DATABASE_URL!)),
    await h.consumer(proxy.urlFor(process.env.DATABASE_URL!)),
  ];
  const show = await h.soldOut(3);
  const users = ['wl-p-a', 'wl-p-b', 'wl-p-c'];
  await h.join(show.eventId, users[0], 2);
  await h.join(show.eventId, users[1], 1);
  await h.join(show.eventId, users[2], 1); // three seats for a pair and a single: c waits

  // the seat API made the first offer's hold; the statement writing the offer never reaches PostgreSQL,
  // and nothing else of the app does until the link is back
  const frozen = proxy.freezeOn('INSERT INTO waitlist_offers');
  const source = await release(show);
  await frozen;
  const made = await h.liveHolds(show.eventId, users[0]);
  expect(made).toHaveLength(1);
  // PostgreSQL ends the silent transaction (idle_in_transaction_session_timeout) and rolls it back: the
  // show's lock is free again and nothing of the offer is written, while the hold lives on in the seat API
  const showLock = `SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
     AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`;
  await eventually(
    async () => (await h.db.rows(showLock, [`waitlist:${show.eventId}`])).length === 0,
    60_000,
    'the silent transaction ended by PostgreSQL',
  );
  expect((await h.entries(show.eventId)).map((e) => e.status)).toEqual(['WAITING', 'WAITING', 'WAITING']);
  expect(await h.offersOf(source)).toEqual([]);

  proxy.thaw();
  await eventually(
    async () => (await h.offersOf(source)).length > 0 && (await h.drained()),
    90_000,
    'the change offered again and its offset committed',
  );
  for (const c of consumers) {
    expect(c.child.exitCode).toBeNull(); // the app recovered by itself
  }
  await expectOffered(show, source, users, 2);
  expect((await h.entries(show.eventId))[0].hold_id).toBe(made[0].holdId); // the hold made before, not another
  await eventually(() => h.announced(show.eventId).size === 2, 30_000, 'both offers announced');
});
