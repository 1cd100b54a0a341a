/**
 * The foundation against the real services: migrations on PostgreSQL, Redis round trips with the
 * service's client, a produce/consume through the real Kafka broker with kafkajs, and what
 * scripts/infra.sh starts and says about them (on private ports: the shared Redis and broker stay untouched).
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { loadConfig } from '@app/config';
import { getMetadataArgsStorage } from 'typeorm';
import { ALL_ENTITIES, runMigrations } from '@app/database';
import { ALL_MIGRATIONS } from '@app/database/migrations';
import { connectRedis, createRedisClient } from '@app/redis';
import { freePort, startPrivateRedis } from '@test/support/private-redis';
import { redisClusterSuite } from '@test/support/redis-cluster-suite';

const config = loadConfig();

/** Every migration the app runs, oldest first (TypeORM runs them in the order of their names' timestamps). */
const MIGRATIONS = ALL_MIGRATIONS.map((m) => m.name);
const stamp = (name: string) => Number(/\d{13}$/.exec(name)?.[0]);
/** The tables the entities map, each made by a migration (entities-match-migrations compares the rest). */
const ENTITY_TABLES = getMetadataArgsStorage()
  .tables.filter((t) => (ALL_ENTITIES as unknown[]).includes(t.target))
  .map((t) => t.name!);

describe('PostgreSQL migrations', () => {
  it('are listed oldest first, each with its own timestamp', () => {
    expect(MIGRATIONS.every((name) => Number.isSafeInteger(stamp(name)))).toBe(true);
    expect([...MIGRATIONS].sort((a, b) => stamp(a) - stamp(b))).toEqual(MIGRATIONS);
    expect(new Set(MIGRATIONS.map(stamp)).size).toBe(MIGRATIONS.length);
  });

  it('create every table in the run schema, once, and record themselves', async () => {
    const first = await runMigrations(config.database);
    expect(first).toEqual(MIGRATIONS);
    expect(await runMigrations(config.database)).toEqual([]);
    const pg = new Client({ connectionString: config.database.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1`,
        [config.database.schema],
      );
      expect(ENTITY_TABLES.length).toBe(ALL_ENTITIES.length);
      expect(rows.map((r) => r.table_name).sort()).toEqual([...ENTITY_TABLES, 'typeorm_migrations'].sort());
      const recorded = await pg.query<{ name: string }>(
        `SELECT name FROM "${config.database.schema}".typeorm_migrations ORDER BY id`,
      );
      expect(recorded.rows.map((r) => r.name)).toEqual(MIGRATIONS);
    } finally {
      await pg.end();
    }
  });

  it('serialise concurrent runs (several instances booting at once)', async () => {
    const schema = `${config.database.schema}_race`;
    const results = await Promise.all([1, 2, 3].map(() => runMigrations({ ...config.database, schema })));
    // one run applies them all, the others wait for its lock and find nothing left to do
    expect(results.flat()).toEqual(MIGRATIONS);
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
        redis.incr('pipelined'), // not an integer: fails alone
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

describe('scripts/infra.sh', () => {
  const repo = path.resolve(__dirname, '..', '..');
  const run = promisify(execFile);
  const dirs: string[] = [];
  const tempDir = (name: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), `infra-${name}-`));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** Runs a checkout's infra.sh and answers what it printed. */
  const infra = async (args: string[], env: Record<string, string>, checkout = repo): Promise<string> => {
    const { stdout } = await run('bash', [path.join(checkout, 'scripts', 'infra.sh'), ...args], {
      env: { ...process.env, INFRA_DIR: '', KAFKA_BROKERS: '', ...env },
      timeout: 150_000,
    });
    return stdout;
  };

  it('starts its own Redis with an append-only file in INFRA_DIR (data survives down and up), and says so', async () => {
    const dir = tempDir('redis');
    const env = { INFRA_DIR: dir, REDIS_PORT: String(await freePort()) };
    const up = await infra(['up', 'redis'], env);
    expect(up).toContain('started by this checkout');
    expect(up).toContain('append-only file on (appendfsync everysec)');
    const redis = new Redis(Number(env.REDIS_PORT), '127.0.0.1');
    try {
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await redis.config('GET', 'dir')).toEqual(['dir', path.join(dir, 'redis')]);
      expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
      await redis.set('kept', 'across a restart');
    } finally {
      redis.disconnect();
    }
    expect(await infra(['down', 'redis'], env)).toContain('redis: stopped');
    expect(await infra(['status', 'redis'], env)).toContain('redis: down');
    await infra(['up', 'redis'], env);
    const again = new Redis(Number(env.REDIS_PORT), '127.0.0.1');
    try {
      expect(await again.get('kept')).toBe('across a restart'); // reloaded from the append-only file
    } finally {
      again.disconnect();
      await infra(['down', 'redis'], env);
    }
  });

  it('uses a Redis already running as it is, says it has no append-only file and how to get one', async () => {
    const other = await startPrivateRedis(); // as the machine's Redis here and on CI: no persistence
    try {
      const env = { INFRA_DIR: tempDir('redis-found'), REDIS_PORT: String(other.port) };
      for (const command of ['up', 'status']) {
        const said = await infra([command, 'redis'], env);
        expect(said).toContain('not started by this script');
        expect(said).toContain('append-only file OFF');
        expect(said).toContain(`redis-cli -p ${other.port} config set appendonly yes`);
      }
      expect(await infra(['down', 'redis'], env)).toContain(
        'redis: not started by this checkout; left as it is',
      );
      expect(await other.client.ping()).toBe('PONG');
      expect(await other.client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']); // not changed behind its back
    } finally {
      await other.stop();
    }
  });

  it("cluster down removes only its own ports' data: clusters on other ports keep theirs", async () => {
    const dir = tempDir('cluster');
    const first = await freePort(); // nothing runs there: down has no node to stop, only data to remove
    const mine = path.join(dir, 'redis-cluster', String(first));
    const neighbour = path.join(dir, 'redis-cluster', String(first + 100)); // another REDIS_CLUSTER_PORT's node
    mkdirSync(mine, { recursive: true });
    mkdirSync(neighbour, { recursive: true });
    const said = await infra(['cluster', 'down'], { INFRA_DIR: dir, REDIS_CLUSTER_PORT: String(first) });
    expect(said).toContain('stopped 0 nodes of this checkout');
    expect(existsSync(mine)).toBe(false);
    expect(existsSync(neighbour)).toBe(true);
  });

  it("says whose Kafka broker it is, and reuses another checkout's broker only saying so", async () => {
    // broker A: started by this checkout on private ports, with the jars the shared broker uses
    const a = {
      INFRA_DIR: tempDir('kafka-a'),
      KAFKA_PORT: String(await freePort()),
      KAFKA_CONTROLLER_PORT: String(await freePort()),
      KAFKA_LIBS: path.join(repo, '.infra', 'kafka', 'libs'),
    };
    // another checkout: its own copy of the scripts, sharing this one's node_modules and broker files
    const other = tempDir('checkout');
    cpSync(path.join(repo, 'scripts'), path.join(other, 'scripts'), { recursive: true });
    symlinkSync(path.join(repo, 'node_modules'), path.join(other, 'node_modules'));
    symlinkSync(path.join(repo, 'tools'), path.join(other, 'tools'));
    mkdirSync(path.join(other, '.infra'));
    const b = {
      KAFKA_PORT: a.KAFKA_PORT,
      KAFKA_CONTROLLER_PORT: a.KAFKA_CONTROLLER_PORT,
      KAFKA_LIBS: a.KAFKA_LIBS,
    };
    try {
      expect(await infra(['up', 'kafka'], a)).toMatch(
        /kafka: up \(127\.0\.0\.1:\d+\), started by this checkout \(pid \d+/,
      );
      expect(readFileSync(path.join(a.INFRA_DIR, 'kafka', 'owner'), 'utf8').trim()).toBe(repo);

      const notOurs = `kafka: up (127.0.0.1:${a.KAFKA_PORT}), started by checkout ${repo} (not this one); using it`;
      expect(await infra(['up', 'kafka'], b, other)).toContain(notOurs);
      expect(existsSync(path.join(other, '.infra', 'kafka', 'kafka.pid'))).toBe(false); // no second broker
      expect(await infra(['status', 'kafka'], b, other)).toContain(notOurs);
      expect(await infra(['down', 'kafka'], b, other)).toContain(
        'kafka: not started by this checkout; left as it is',
      );
      expect(await infra(['status', 'kafka'], a)).toContain('started by this checkout');
    } finally {
      await infra(['down', 'kafka'], a);
    }
    expect(await infra(['status', 'kafka'], a)).toContain('kafka: down');
  }, 240_000);
});

describe('the Redis Cluster test files without redis-server', () => {
  const noRedisServer = { PATH: '/nonexistent' }; // a machine without it: `command -v` finds nothing

  it('fail in the cluster run (TEST_REDIS=cluster), naming what is missing', () => {
    expect(() => redisClusterSuite('x.e2e-spec', { ...noRedisServer, TEST_REDIS: 'cluster' })).toThrow(
      /x\.e2e-spec: redis-server not found on PATH, and the cluster run \(TEST_REDIS=cluster\) needs it/,
    );
  });

  it('are skipped, loudly, in the plain run; run where redis-server is found', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(redisClusterSuite('x.e2e-spec', noRedisServer)).toBe(describe.skip);
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining('x.e2e-spec SKIPPED: redis-server not found'),
      );
    } finally {
      warn.mockRestore();
    }
    expect(redisClusterSuite('x.e2e-spec', { ...process.env, TEST_REDIS: 'cluster' })).toBe(describe);
  });
});
