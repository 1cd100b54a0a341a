/**
 * The three apps as one deployment runs them, from their build (`dist/`): the seat API on a private Redis,
 * the expiry consumer and the waiting list beside it, sharing one throw-away PostgreSQL schema and
 * bench-only Kafka topics and consumer groups. Every process is started with the same `node` flags, so a
 * stack is "started as npm start does" or "started with a plain node".
 */
import * as path from 'node:path';
import { Client } from 'pg';
import { createKafka } from '@app/kafka';
import { freePort } from '../../test/support/private-redis';
import { Child, repoRoot, spawnBuilt, waitUntilUp } from '../support/child';
import { BENCH_SECRET, DATABASE_URL, signBenchToken } from '../support/service';

export const APPS = ['seat-api', 'expiry-consumer', 'waitlist'] as const;
export type AppName = (typeof APPS)[number];

export interface AppStack {
  name: string;
  processes: Record<AppName, Child>;
  /** Makes every app do its work once: a hold that expires, one that is released. */
  exercise(): Promise<void>;
  stop(): Promise<void>;
}

const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';

/**
 * Starts the stack from `root`'s dist/ (the checkout being measured) and waits until the seat API
 * answers and both consumers are ready (in their groups).
 */
export async function startAppStack(
  name: string,
  redisUrl: string,
  nodeArgs: readonly string[],
  root = repoRoot,
): Promise<AppStack> {
  const tag = `bench_${name}_${Date.now().toString(36)}`;
  const [apiPort, consumerPort, waitlistPort] = [await freePort(), await freePort(), await freePort()];
  const topics = {
    KAFKA_TOPIC_SEAT_EXPIRED: `${tag}.seat-expired`,
    KAFKA_TOPIC_DEAD_LETTER: `${tag}.dlq`,
    KAFKA_TOPIC_SEAT_STATUS: `${tag}.seat-status`,
  };
  const env: Record<string, string> = {
    AUTH_JWT_SECRET: BENCH_SECRET,
    DATABASE_URL,
    DATABASE_SCHEMA: tag,
    KAFKA_BROKERS,
    ...topics,
    KAFKA_CONSUMER_GROUP: `${tag}.expiry`,
    WAITLIST_CONSUMER_GROUP: `${tag}.waitlist`,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: 'svc:',
    PORT: String(apiPort),
    EXPIRY_CONSUMER_PORT: String(consumerPort),
    WAITLIST_PORT: String(waitlistPort),
    WAITLIST_SEAT_API_URL: `http://127.0.0.1:${apiPort}`,
    SWEEPER_ENABLED: 'true',
    SEED_DEMO_EVENT: 'false',
    // a hold of 1 s expires while the bench waits: the expiry consumer gets a SeatExpired
    HOLD_MIN_TTL_SECONDS: '1',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
  };
  const log = (app: AppName) => path.resolve(__dirname, '..', 'results', `idle-${name}-${app}.log.tmp`);
  const processes = {} as Record<AppName, Child>;
  const stop = async () => {
    await Promise.all(Object.values(processes).map((p) => p.stop()));
    const pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    await pg.query(`DROP SCHEMA IF EXISTS "${tag}" CASCADE`);
    await pg.end();
    const admin = createKafka({
      brokers: KAFKA_BROKERS.split(','),
      clientId: 'bench-idle',
      requestTimeoutMs: 3000,
    }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
    await admin.deleteGroups([env.KAFKA_CONSUMER_GROUP, env.WAITLIST_CONSUMER_GROUP]).catch(() => undefined);
    await admin.disconnect();
  };
  try {
    // the seat API first: it runs the migrations and creates the topics the consumers subscribe to
    processes['seat-api'] = spawnBuilt(
      'dist/apps/seat-api/src/main.js',
      env,
      log('seat-api'),
      nodeArgs,
      root,
    );
    await waitUntilUp(`http://127.0.0.1:${apiPort}/health`, processes['seat-api'], 120_000);
    processes['expiry-consumer'] = spawnBuilt(
      'dist/apps/expiry-consumer/src/main.js',
      env,
      log('expiry-consumer'),
      nodeArgs,
      root,
    );
    processes.waitlist = spawnBuilt('dist/apps/waitlist/src/main.js', env, log('waitlist'), nodeArgs, root);
    await Promise.all([
      waitUntilUp(`http://127.0.0.1:${consumerPort}/health`, processes['expiry-consumer'], 120_000),
      waitUntilUp(`http://127.0.0.1:${waitlistPort}/health`, processes.waitlist, 120_000),
    ]);
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
  const api = `http://127.0.0.1:${apiPort}`;
  return {
    name,
    processes,
    stop,
    exercise: async () => {
      const admin = await signBenchToken('bench-admin', ['admin']);
      const user = await signBenchToken('user-1', []);
      const call = async (method: string, url: string, token: string, body?: unknown) => {
        const res = await fetch(`${api}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        if (res.status >= 300) {
          throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
        }
        return res.status === 204 ? undefined : ((await res.json()) as Record<string, string>);
      };
      const { eventId } = (await call('POST', '/v1/events', admin, {
        name: 'Idle show',
        startsAt: '2030-01-01T20:00:00Z',
        sections: [{ name: 'S', category: 'standard', rows: [{ row: 'R1', seats: 10 }] }],
      }))!;
      await call('POST', `/v1/events/${eventId}/holds`, user, { seatIds: ['S-R1-1'], ttlSeconds: 1 });
      const { holdId } = (await call('POST', `/v1/events/${eventId}/holds`, user, {
        seatIds: ['S-R1-5'],
        ttlSeconds: 60,
      }))!;
      await call('DELETE', `/v1/holds/${holdId}`, user);
      // the expiry reaches the expiry consumer through the sweeper, the relay and Kafka
      const deadline = Date.now() + 60_000;
      for (;;) {
        const metrics = await (await fetch(`http://127.0.0.1:${consumerPort}/metrics`)).text();
        if (/^expiry_consumer_messages_total\{[^}]*\} [1-9]/m.test(metrics)) {
          return;
        }
        if (Date.now() > deadline) {
          throw new Error(`stack ${name}: the expiry consumer got no SeatExpired within 60 s`);
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    },
  };
}
