import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { startInfrastructure, StartedInfra } from './infrastructure';

declare global {
  var __TEST_INFRA__: StartedInfra | undefined;
}

/**
 * Runs once per jest run. Workers inherit process.env, so endpoints travel through it. The integration and
 * e2e projects both name it: when a run holds both, the second call finds the services already started.
 */
export default async function globalSetup(): Promise<void> {
  if (globalThis.__TEST_INFRA__) {
    return;
  }
  const infra = await startInfrastructure();
  globalThis.__TEST_INFRA__ = infra;
  process.env.DATABASE_URL = infra.endpoints.databaseUrl;
  if (process.env.TEST_REDIS === 'cluster') {
    // the cluster run (npm run test:cluster): the local 3-master Redis Cluster instead of the single Redis
    execFileSync('bash', [path.resolve(__dirname, '..', '..', 'scripts', 'infra.sh'), 'cluster', 'up'], {
      stdio: 'inherit',
    });
    const first = Number(process.env.REDIS_CLUSTER_PORT ?? 7101);
    process.env.REDIS_CLUSTER_NODES = [0, 1, 2].map((i) => `127.0.0.1:${first + i}`).join(',');
    delete process.env.REDIS_URL;
  } else {
    process.env.REDIS_URL = infra.endpoints.redisUrl;
  }
  process.env.KAFKA_BROKERS = infra.endpoints.kafkaBrokers;
  // Names every schema, key prefix and topic this run creates, so runs never collide and teardown finds them.
  process.env.TEST_RUN_ID =
    process.env.TEST_RUN_ID ?? `r${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  console.log(
    `\n[test infra] ${infra.mode}: pg=${infra.endpoints.databaseUrl} redis=${process.env.REDIS_CLUSTER_NODES ?? infra.endpoints.redisUrl} kafka=${infra.endpoints.kafkaBrokers} run=${process.env.TEST_RUN_ID}`,
  );
}
