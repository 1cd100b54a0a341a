/**
 * The foundation against the real services: migrations on PostgreSQL, Redis round trips with the
 * service's client, and a produce/consume through the real Kafka broker with kafkajs.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { loadConfig } from '@app/config';
import { runMigrations } from '@app/database';
import { connectRedis, createRedisClient } from '@app/redis';

const config = loadConfig();

describe('PostgreSQL migrations', () => {
  it('create every table in the run schema, once, and record themselves', async () => {
    const first = await runMigrations(config.database);
    expect(first).toEqual(['InitialSchema1763800000000', 'BookingAttempts1763900000000']);
    expect(await runMigrations(config.database)).toEqual([]);
    const pg = new Client({ connectionString: config.database.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
        [config.database.schema],
      );
      expect(rows.map((r) => r.table_name)).toEqual([
        'booking_seats',
        'bookings',
        'events',
        'hold_expiries',
        'seats',
        'typeorm_migrations',
      ]);
    } finally {
      await pg.end();
    }
  });

  it('serialise concurrent runs (several instances booting at once)', async () => {
    const schema = `${config.database.schema}_race`;
    const results = await Promise.all([1, 2, 3].map(() => runMigrations({ ...config.database, schema })));
    expect(results.flat()).toEqual(['InitialSchema1763800000000', 'BookingAttempts1763900000000']);
  });
});

describe('Redis client', () => {
  it('round-trips under the key prefix and fails fast when Redis is unreachable', async () => {
    const redis = createRedisClient({ ...config.redis, name: 'test' });
    await connectRedis(redis);
    try {
      await redis.set('probe', 'ok', 'PX', 10_000);
      expect(await redis.get('probe')).toBe('ok');
    } finally {
      await redis.quit();
    }
    const dead = createRedisClient({ ...config.redis, url: 'redis://127.0.0.1:1', name: 'dead' });
    const started = performance.now();
    await expect(connectRedis(dead)).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(3000);
    dead.disconnect();
  });

  it('sends the commands of one event-loop turn in one write, each keeping its own answer or error', async () => {
    const redis = createRedisClient({ ...config.redis, autoPipelining: true, name: 'test-pipelining' });
    const plain = createRedisClient({ ...config.redis, autoPipelining: false, name: 'test-plain' });
    await Promise.all([connectRedis(redis), connectRedis(plain)]);
    try {
      expect(
        loadConfig({ AUTH_JWT_SECRET: 'x'.repeat(32), REDIS_URL: 'redis://x' }).redis.autoPipelining,
      ).toBe(true); // the default
      const calls = [
        redis.set('pipelined', 'v', 'PX', 10_000),
        redis.eval(`return redis.call('INCR', KEYS[1])`, 1, 'pipelined'), // not an integer: fails alone
        redis.get('pipelined'),
      ];
      expect(redis.autoPipelineQueueSize).toBe(3); // queued for one write, not sent one by one
      const [set, incr, get] = await Promise.allSettled(calls);
      expect(set).toEqual({ status: 'fulfilled', value: 'OK' });
      expect(incr.status).toBe('rejected');
      expect(get).toEqual({ status: 'fulfilled', value: 'v' });
      const direct = plain.get('pipelined');
      expect(plain.autoPipelineQueueSize).toBe(0); // REDIS_AUTO_PIPELINING=false writes at once
      expect(await direct).toBe('v');
    } finally {
      await Promise.all([redis.quit(), plain.quit()]);
    }
  });
});

describe('Kafka broker', () => {
  it('delivers a produced message to a consumer group', async () => {
    const kafka = new Kafka({ brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
    const topic = `${config.kafka.seatExpiredTopic}.probe`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    const consumer = kafka.consumer({ groupId: `probe-${randomUUID()}` });
    try {
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const value = randomUUID();
      const received = new Promise<string>((resolve) => {
        void consumer.run({
          eachMessage: ({ message }) => {
            resolve(message.value!.toString());
            return Promise.resolve();
          },
        });
      });
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value }] });
      await expect(received).resolves.toBe(value);
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    }
  });
});
