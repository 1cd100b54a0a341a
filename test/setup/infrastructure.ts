/**
 * Decides where the tests' PostgreSQL, Redis and Kafka come from, in this order:
 *   1. explicit DATABASE_URL / REDIS_URL / KAFKA_BROKERS (any of them) are used as given;
 *   2. a reachable container runtime: testcontainers starts what is not given;
 *   3. otherwise the local services, brought up (idempotently) by scripts/infra.sh.
 * TEST_INFRA=local|containers forces 2 or 3.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

export interface Endpoints {
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string;
}

export interface StartedInfra {
  mode: 'local' | 'containers';
  endpoints: Endpoints;
  stop: () => Promise<void>;
}

const repoRoot = path.resolve(__dirname, '..', '..');

async function containerRuntimeReachable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startContainers(given: Partial<Endpoints>): Promise<StartedInfra> {
  const stops: Array<() => Promise<unknown>> = [];
  const endpoints: Partial<Endpoints> = { ...given };
  const tasks: Promise<void>[] = [];
  if (!endpoints.databaseUrl) {
    tasks.push(
      (async () => {
        const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
        const pg = await new PostgreSqlContainer('postgres:16-alpine').start();
        stops.push(() => pg.stop());
        endpoints.databaseUrl = pg.getConnectionUri();
      })(),
    );
  }
  if (!endpoints.redisUrl) {
    tasks.push(
      (async () => {
        const { RedisContainer } = await import('@testcontainers/redis');
        const redis = await new RedisContainer('redis:7-alpine').start();
        stops.push(() => redis.stop());
        endpoints.redisUrl = redis.getConnectionUrl();
      })(),
    );
  }
  if (!endpoints.kafkaBrokers) {
    tasks.push(
      (async () => {
        const { KafkaContainer } = await import('@testcontainers/kafka');
        const kafka = await new KafkaContainer('confluentinc/cp-kafka:7.9.1').withKraft().start();
        stops.push(() => kafka.stop());
        endpoints.kafkaBrokers = `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
      })(),
    );
  }
  await Promise.all(tasks);
  return {
    mode: 'containers',
    endpoints: endpoints as Endpoints,
    stop: async () => {
      await Promise.allSettled(stops.map((s) => s()));
    },
  };
}

function startLocal(given: Partial<Endpoints>): StartedInfra {
  // infra.sh is idempotent: a no-op when everything already answers.
  const env = { ...process.env };
  if (given.kafkaBrokers) {
    env.KAFKA_BROKERS = given.kafkaBrokers;
  }
  execFileSync('bash', [path.join(repoRoot, 'scripts', 'infra.sh'), 'up'], { stdio: 'inherit', env });
  return {
    mode: 'local',
    endpoints: {
      databaseUrl: given.databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/test',
      redisUrl: given.redisUrl ?? 'redis://127.0.0.1:6379',
      kafkaBrokers: given.kafkaBrokers ?? '127.0.0.1:9092',
    },
    stop: () => Promise.resolve(),
  };
}

export async function startInfrastructure(): Promise<StartedInfra> {
  const given: Partial<Endpoints> = {
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    kafkaBrokers: process.env.KAFKA_BROKERS,
  };
  const forced = process.env.TEST_INFRA;
  const allGiven = given.databaseUrl && given.redisUrl && given.kafkaBrokers;
  if (allGiven) {
    return { mode: 'local', endpoints: given as Endpoints, stop: () => Promise.resolve() };
  }
  if (forced === 'containers' || (forced !== 'local' && (await containerRuntimeReachable()))) {
    return startContainers(given);
  }
  return startLocal(given);
}
