import '../../libs/kafka/src/request-queue-timer'; // as the apps: no 1 ms timer per idle connection
import { Kafka, logLevel } from 'kafkajs';
import Redis from 'ioredis';
import { Client } from 'pg';

/**
 * Drops what this run created in the services it provided (schemas, keys, topics), then stops containers
 * if any were started. Once per run, after every project: one module for all of them.
 */
export default async function globalTeardown(): Promise<void> {
  const infra = globalThis.__TEST_INFRA__;
  if (!infra) {
    return;
  }
  globalThis.__TEST_INFRA__ = undefined;
  const run = process.env.TEST_RUN_ID;
  if (run && !process.env.TEST_KEEP_DATA) {
    const drops = { postgres: dropSchemas, redis: dropKeys, kafka: dropTopics };
    await Promise.allSettled([...infra.services].map((service) => drops[service](run)));
  }
  await Promise.allSettled(infra.stops.map((stop) => stop()));
}

async function dropSchemas(run: string): Promise<void> {
  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`,
      [`t_${run.toLowerCase()}_%`],
    );
    for (const { nspname } of rows) {
      await pg.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    }
  } finally {
    await pg.end();
  }
}

async function dropKeys(run: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `t:${run}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) {
        await redis.unlink(...keys);
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function dropTopics(run: string): Promise<void> {
  const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.includes(`.${run}.`));
    if (topics.length > 0) {
      await admin.deleteTopics({ topics, timeout: 5000 });
    }
  } finally {
    await admin.disconnect();
  }
}
