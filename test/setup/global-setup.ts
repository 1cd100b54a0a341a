import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { ENDPOINT_VARIABLE, Service, SERVICES, startInfrastructure } from './infrastructure';

/** What this jest run has provided so far, for the projects set up after it and for the teardown. */
export interface TestInfra {
  services: Set<Service>;
  stops: Array<() => Promise<void>>;
}

declare global {
  var __TEST_INFRA__: TestInfra | undefined;
}

/**
 * Runs once per jest run and setup module (jest.config.js gives each project the module of the services
 * its files need); workers inherit process.env, so endpoints travel through it. A service an earlier
 * module already provided is not asked for again.
 */
export async function provide(services: readonly Service[]): Promise<void> {
  const infra = (globalThis.__TEST_INFRA__ ??= { services: new Set(), stops: [] });
  const missing = services.filter((service) => !infra.services.has(service));
  if (missing.length === 0) {
    return;
  }
  const started = await startInfrastructure(missing);
  infra.stops.push(started.stop);
  for (const service of missing) {
    infra.services.add(service);
    process.env[ENDPOINT_VARIABLE[service]] = started.endpoints[service];
  }
  if (missing.includes('redis') && process.env.TEST_REDIS === 'cluster') {
    // the cluster run (npm run test:cluster): the local 3-master Redis Cluster instead of the single Redis
    execFileSync('bash', [path.resolve(__dirname, '..', '..', 'scripts', 'infra.sh'), 'cluster', 'up'], {
      stdio: 'inherit',
    });
    const first = Number(process.env.REDIS_CLUSTER_PORT ?? 7101);
    process.env.REDIS_CLUSTER_NODES = [0, 1, 2].map((i) => `127.0.0.1:${first + i}`).join(',');
    delete process.env.REDIS_URL;
  }
  // Names every schema, key prefix and topic this run creates, so runs never collide and teardown finds them.
  process.env.TEST_RUN_ID =
    process.env.TEST_RUN_ID ?? `r${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const shown = missing.map(
    (s) =>
      `${s}=${s === 'redis' ? (process.env.REDIS_CLUSTER_NODES ?? started.endpoints.redis) : started.endpoints[s]}`,
  );
  console.log(`\n[test infra] ${started.mode}: ${shown.join(' ')} run=${process.env.TEST_RUN_ID}`);
}

/** The e2e files, the cluster list and integration files that need several services: all three. */
export default function globalSetup(): Promise<void> {
  return provide(SERVICES);
}
