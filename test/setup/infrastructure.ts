/**
 * Decides where the services a jest project needs (PostgreSQL, Redis, Kafka: only those it names) come
 * from, in this order:
 *   1. explicit DATABASE_URL / REDIS_URL / KAFKA_BROKERS are used as given;
 *   2. a reachable container runtime: testcontainers starts what is not given;
 *   3. otherwise the local services, brought up (idempotently) by scripts/infra.sh.
 * TEST_INFRA=local|containers forces 2 or 3. A service not named is never started, asked or waited for.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

export type Service = 'postgres' | 'redis' | 'kafka';
export const SERVICES: readonly Service[] = ['postgres', 'redis', 'kafka'];

/** Each service's endpoint: a connection URL, or Kafka's broker list; as their variables spell them. */
export type Endpoints = Partial<Record<Service, string>>;

export const ENDPOINT_VARIABLE: Record<Service, string> = {
  postgres: 'DATABASE_URL',
  redis: 'REDIS_URL',
  kafka: 'KAFKA_BROKERS',
};

const LOCAL: Record<Service, string> = {
  postgres: 'postgres://postgres@127.0.0.1:5432/test',
  redis: 'redis://127.0.0.1:6379',
  kafka: '127.0.0.1:9092',
};

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

const CONTAINERS: Record<Service, () => Promise<{ endpoint: string; stop: () => Promise<unknown> }>> = {
  postgres: async () => {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer('postgres:16-alpine').start();
    return { endpoint: pg.getConnectionUri(), stop: () => pg.stop() };
  },
  redis: async () => {
    const { RedisContainer } = await import('@testcontainers/redis');
    const redis = await new RedisContainer('redis:7-alpine').start();
    return { endpoint: redis.getConnectionUrl(), stop: () => redis.stop() };
  },
  kafka: async () => {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const kafka = await new KafkaContainer('confluentinc/cp-kafka:7.9.1').withKraft().start();
    return { endpoint: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`, stop: () => kafka.stop() };
  },
};

async function startContainers(given: Endpoints, missing: Service[]): Promise<StartedInfra> {
  const endpoints: Endpoints = { ...given };
  const started = await Promise.all(
    missing.map(async (service) => {
      const c = await CONTAINERS[service]();
      endpoints[service] = c.endpoint;
      return c;
    }),
  );
  return {
    mode: 'containers',
    endpoints,
    stop: async () => {
      await Promise.allSettled(started.map((c) => c.stop()));
    },
  };
}

function startLocal(given: Endpoints, missing: Service[]): StartedInfra {
  // infra.sh is idempotent: a no-op for each service that already answers
  const env = { ...process.env };
  if (given.kafka) {
    env.KAFKA_BROKERS = given.kafka;
  }
  execFileSync('bash', [path.join(repoRoot, 'scripts', 'infra.sh'), 'up', ...missing], {
    stdio: 'inherit',
    env,
  });
  const endpoints: Endpoints = { ...given };
  for (const service of missing) {
    endpoints[service] = LOCAL[service];
  }
  return { mode: 'local', endpoints, stop: () => Promise.resolve() };
}

export async function startInfrastructure(services: readonly Service[]): Promise<StartedInfra> {
  const given: Endpoints = {};
  for (const service of services) {
    given[service] = process.env[ENDPOINT_VARIABLE[service]] || undefined;
  }
  const missing = services.filter((service) => !given[service]);
  if (missing.length === 0) {
    return { mode: 'local', endpoints: given, stop: () => Promise.resolve() };
  }
  const forced = process.env.TEST_INFRA;
  if (forced === 'containers' || (forced !== 'local' && (await containerRuntimeReachable()))) {
    return startContainers(given, missing);
  }
  return startLocal(given, missing);
}
