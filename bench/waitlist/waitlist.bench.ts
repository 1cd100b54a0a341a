/**
 * Waiting-list offers through the real apps: the seat API (child process, private Redis) and apps/waitlist
 * (one, then two instances in one consumer group), the local Kafka broker and PostgreSQL.
 * SHOWS shows of 4 seats, each sold out to a buyer and with 4 waiting entries of one seat; every buyer
 * releases, and the HoldReleased of every show is published at once (as the seat API's relay would), so
 * each freed seat becomes one offer: a hold made over HTTP, the entry OFFERED, WaitlistOfferMade published.
 * Reports, per round: time from the burst until the last offer, offers per second, and the latency of an
 * offer (publish of its change until its transaction: waitlist_offers.created_at), with two instances
 * against one side by side. Each round reads its own topic with a new group.
 * Run: npm run bench:waitlist   (BENCH_WAITLIST_SHOWS, default 200)
 */
import 'reflect-metadata';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { holdReleasedEvent, seatStatusKafkaMessage } from '@app/contracts';
import { ensureTopics } from '@app/kafka';
import { startPrivateRedis } from '../../test/support/private-redis';
import { Child, spawnTs } from '../support/child';
import { table, writeReport } from '../support/report';
import { BENCH_SECRET, BenchService, DATABASE_URL, startService } from '../support/service';
import * as path from 'node:path';

const SHOWS = Number(process.env.BENCH_WAITLIST_SHOWS ?? 200);
const SEATS = 4;
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

interface Round {
  instances: number;
  offers: number;
  drainMs: number;
  p50: number;
  p99: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

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

async function round(
  svc: BenchService,
  pg: Client,
  kafka: Kafka,
  instances: number,
  n: number,
): Promise<Round> {
  const topic = `${svc.schema}.waitlist-r${n}`;
  await ensureTopics(kafka, [topic], 6);
  const shows: { eventId: string; holdId: string; seatIds: string[] }[] = [];
  const buyer = await svc.token(0);
  for (let s = 0; s < SHOWS; s++) {
    const eventId = await svc.createEvent(SEATS);
    const seatIds = Array.from({ length: SEATS }, (_, i) => `S-R1-${i + 1}`);
    const hold = await call(svc.base, buyer, 'POST', `/v1/events/${eventId}/holds`, {
      seatIds,
      ttlSeconds: 600,
    });
    for (let e = 0; e < SEATS; e++) {
      const user = await svc.token(1 + s * SEATS + e);
      await call(svc.base, user, 'POST', `/v1/events/${eventId}/waitlist`, { quantity: 1 });
    }
    await call(svc.base, buyer, 'DELETE', `/v1/holds/${String(hold.holdId)}`);
    shows.push({ eventId, holdId: String(hold.holdId), seatIds });
  }
  const children: Child[] = [];
  for (let i = 0; i < instances; i++) {
    children.push(
      spawnTs(
        'apps/waitlist/src/main.ts',
        {
          AUTH_JWT_SECRET: BENCH_SECRET,
          DATABASE_URL,
          DATABASE_SCHEMA: svc.schema,
          KAFKA_TOPIC_SEAT_STATUS: topic,
          WAITLIST_CONSUMER_GROUP: `${topic}.group`,
          WAITLIST_SEAT_API_URL: svc.base,
          WAITLIST_PORT: '0',
          LOG_LEVEL: 'warn',
          LOG_FORMAT: 'json',
        },
        path.resolve(__dirname, '..', 'results', `waitlist-r${n}-${i}.log.tmp`),
      ),
    );
  }
  try {
    const admin = kafka.admin();
    await admin.connect();
    // every instance has joined: the group is stable with all members before the burst
    for (;;) {
      const {
        groups: [{ members, state }],
      } = await admin.describeGroups([`${topic}.group`]);
      if (state === 'Stable' && members.length === instances) {
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const published = Date.now();
    await producer.send({
      topic,
      acks: -1,
      messages: shows.map((s) =>
        seatStatusKafkaMessage(
          holdReleasedEvent(
            {
              eventId: s.eventId,
              holdId: s.holdId,
              userId: 'user-0',
              seatIds: s.seatIds,
              reason: 'RELEASED',
            },
            new Date(),
          ),
        ),
      ),
    });
    await producer.disconnect();
    const events = shows.map((s) => s.eventId);
    const total = SHOWS * SEATS;
    for (;;) {
      const [{ n: offered }] = (
        await pg.query(
          `SELECT count(*)::int AS n FROM "${svc.schema}".waitlist_entries WHERE event_id = ANY($1::uuid[]) AND status = 'OFFERED'`,
          [events],
        )
      ).rows as { n: number }[];
      if (offered >= total) {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const { rows } = await pg.query(
      `SELECT (extract(epoch FROM o.created_at) * 1000)::float8 AS at FROM "${svc.schema}".waitlist_offers o
         JOIN "${svc.schema}".waitlist_entries e ON e.id = o.entry_id WHERE e.event_id = ANY($1::uuid[])`,
      [events],
    );
    const latencies = (rows as { at: number }[]).map((r) => r.at - published).sort((a, b) => a - b);
    return {
      instances,
      offers: latencies.length,
      drainMs: latencies[latencies.length - 1],
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

async function main() {
  const redis = await startPrivateRedis();
  const svc = await startService('waitlist', redis.url, { RATE_LIMIT_ENABLED: 'false' });
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  const kafka = new Kafka({ clientId: 'bench-waitlist', brokers: BROKERS, logLevel: logLevel.NOTHING });
  try {
    const one = await round(svc, pg, kafka, 1, 1);
    const two = await round(svc, pg, kafka, 2, 2);
    const rows = [one, two].map((r) => [
      r.instances,
      r.offers,
      (r.drainMs / 1000).toFixed(2),
      Math.round((r.offers / r.drainMs) * 1000),
      Math.round(r.p50),
      Math.round(r.p99),
    ]);
    const ratio = (one.drainMs / two.drainMs).toFixed(2);
    const report = [
      `${SHOWS} shows × ${SEATS} seats freed at once, ${SHOWS * SEATS} waiting entries of one seat: one offer per freed seat.`,
      '',
      table(
        ['instances', 'offers', 'last offer after (s)', 'offers/s', 'p50 latency (ms)', 'p99 latency (ms)'],
        rows,
      ),
      '',
      `Two instances against one: ${ratio}x the offers per second. Each show's changes are one partition's, read`,
      'in order; an offer is a hold made through the seat API, so on a machine whose cores the seat API,',
      'Redis, PostgreSQL and Kafka already share, a second instance adds a reader for a crash more than speed.',
    ];
    const file = writeReport(
      'waitlist',
      'Waiting-list offers: one and two apps/waitlist instances',
      'npm run bench:waitlist',
      report,
    );
    console.log(report.join('\n'));
    console.log(`written to ${file}`);
  } finally {
    await pg.end();
    await svc.stop();
    await redis.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
