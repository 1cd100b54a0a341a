// Tests in tiers, one jest project each, told apart by file name (`npx jest <file>` finds its tier):
//   unit         {apps,libs}/**/*.spec.ts      next to the code; no global setup and no infrastructure: a
//                                              unit file passes with Redis, PostgreSQL and Kafka all down
//   integration  {apps,libs}/**/*.int-spec.ts  next to the code, against the real services it needs: Redis
//                                              (a private redis-server counts: it is Redis), unless its
//                                              first comment names others (` * @needs postgres`); jest
//                                              starts, asks and waits for those alone (needsOf)
//   e2e          test/**/*.e2e-spec.ts         the apps over HTTP and Kafka, against the real services
//   cluster      CLUSTER below                 again, on the local Redis Cluster: TEST_REDIS=cluster runs
//                                              this list and nothing else
// A spec that needs any of the three services is an int-spec, never a spec.

const fs = require('node:fs');
const path = require('node:path');

/** The files the cluster run repeats on the Redis Cluster; a new file joins it by being listed here. */
const CLUSTER = [
  'apps/seat-api/src/hold-store/allocation.store.int-spec.ts',
  'apps/seat-api/src/hold-store/hold-pricing-field.int-spec.ts',
  'apps/seat-api/src/hold-store/queue.store.int-spec.ts',
  'libs/distributed-lock/src/auto-pipelining-client.int-spec.ts',
  'libs/distributed-lock/src/contention.int-spec.ts',
  'libs/distributed-lock/src/distributed-lock.decorator.int-spec.ts',
  'libs/distributed-lock/src/distributed-lock.module.int-spec.ts',
  'libs/distributed-lock/src/locking.int-spec.ts',
  'libs/distributed-lock/src/pipelined-sections.int-spec.ts',
  'libs/distributed-lock/src/redis-down.int-spec.ts',
  'libs/distributed-lock/src/round-trips.int-spec.ts',
  'libs/distributed-lock/src/timed-out-calls.int-spec.ts',
  'test/areas/place-expiry.e2e-spec.ts',
  'test/areas/place-blocks.e2e-spec.ts',
  'test/areas/place-holds.e2e-spec.ts',
  'test/areas/place-seat-map.e2e-spec.ts',
  'test/areas/place-staff.e2e-spec.ts',
  'test/catalogue/event-cancel.e2e-spec.ts',
  'test/catalogue/event-rule-changes.e2e-spec.ts',
  'test/expiry/confirm-repair.e2e-spec.ts',
  'test/expiry/expirations-query.e2e-spec.ts',
  'test/expiry/expiry-metrics.e2e-spec.ts',
  'test/expiry/expiry-pipeline.e2e-spec.ts',
  'test/expiry/reconciler-isolation.e2e-spec.ts',
  'test/holds/accessible-seats-for-all.e2e-spec.ts',
  'test/holds/auth.e2e-spec.ts',
  'test/holds/best-available.e2e-spec.ts',
  'test/holds/confirm-paths.e2e-spec.ts',
  'test/holds/confirm-silent-database.e2e-spec.ts',
  'test/holds/confirm.e2e-spec.ts',
  'test/holds/event-ended.e2e-spec.ts',
  'test/holds/extend-retry.e2e-spec.ts',
  'test/holds/flash-sale.e2e-spec.ts',
  'test/holds/holds.e2e-spec.ts',
  'test/holds/idempotency-canonical.e2e-spec.ts',
  'test/holds/idempotency.e2e-spec.ts',
  'test/holds/lock-validity.e2e-spec.ts',
  'test/holds/orphan-rule.e2e-spec.ts',
  'test/holds/rate-limit-cluster.e2e-spec.ts',
  'test/holds/redis-stall.e2e-spec.ts',
  'test/holds/token-lifetime.e2e-spec.ts',
  'test/infrastructure/hold-shards-cluster.e2e-spec.ts',
  'test/pricing/price-change.e2e-spec.ts',
  'test/pricing/priced-holds.e2e-spec.ts',
  'test/pricing/promo-holds.e2e-spec.ts',
  'test/pricing/promo-race.e2e-spec.ts',
  'test/queue/queue-api.e2e-spec.ts',
  'test/queue/queue-instance-killed.e2e-spec.ts',
  'test/outbox/outbox-faults.e2e-spec.ts',
  'test/outbox/seat-status.e2e-spec.ts',
  'test/shards/shard-ownership.e2e-spec.ts',
  // the waiting list's Kafka and PostgreSQL fault drills (offers-exactly-once, offers-outages,
  // leave-during-offer) run once: they take minutes, and their one Redis part, a hold replayed by its
  // Idempotency-Key, is in the idempotency files above; a rebalance in the middle of a burst, with offer
  // holds made and replayed on the Cluster, is offers-rebalance (seconds)
  'test/waitlist/offer-lifecycle.e2e-spec.ts',
  'test/waitlist/offers-rebalance.e2e-spec.ts',
  'test/waitlist/waitlist-api.e2e-spec.ts',
];

const missing = CLUSTER.filter((file) => !fs.existsSync(path.join(__dirname, file)));
if (process.env.TEST_REDIS === 'cluster' && missing.length > 0) {
  // a renamed or deleted file would otherwise leave the cluster run without a word
  throw new Error(`jest.config.js: CLUSTER names files that do not exist: ${missing.join(', ')}`);
}

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': '<rootDir>/test/setup/swc-transform.js' },
  transformIgnorePatterns: [],
  moduleNameMapper: {
    '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
    '^@app/([a-z-]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
    '^@test/support/(.*)$': '<rootDir>/test/support/$1',
  },
  setupFiles: ['<rootDir>/test/setup/per-file-env.ts'],
  testTimeout: 60000,
  slowTestThreshold: 20,
};

/** The e2e tier and the cluster list need every service: one run of the global setup provides them. */
const withInfrastructure = {
  ...common,
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
};

const SERVICES = ['redis', 'postgres', 'kafka'];

/**
 * The services an integration file needs: those its first comment names after `@needs`, else Redis.
 * Jest runs a global setup module once per run whatever the projects sharing it, so each set of needs is
 * one project with its own module: test/setup/needs-<service>.ts for one service, global-setup.ts (all
 * three) for more.
 */
function needsOf(file) {
  const head = /^\s*\/\*([\s\S]*?)\*\//.exec(fs.readFileSync(path.join(__dirname, file), 'utf8'))?.[1] ?? '';
  const declared = /@needs\s+([a-z, ]+)/
    .exec(head)?.[1]
    .split(/[\s,]+/)
    .filter(Boolean) ?? ['redis'];
  const unknown = declared.filter((need) => !SERVICES.includes(need));
  if (unknown.length > 0) {
    throw new Error(
      `jest.config.js: ${file} @needs ${unknown.join(', ')}: not one of ${SERVICES.join(', ')}`,
    );
  }
  return [...new Set(declared)].sort();
}

/** One integration project per set of needs, each with the setup of those services alone. */
function integrationProjects() {
  const byNeeds = new Map();
  for (const file of fs.globSync('{apps,libs}/**/*.int-spec.ts', { cwd: __dirname })) {
    const needs = needsOf(file).join(',');
    byNeeds.set(needs, [...(byNeeds.get(needs) ?? []), `<rootDir>/${file}`]);
  }
  return [...byNeeds].map(([needs, files]) => ({
    ...common,
    displayName: 'integration',
    testMatch: files,
    globalSetup: needs.includes(',')
      ? '<rootDir>/test/setup/global-setup.ts'
      : `<rootDir>/test/setup/needs-${needs}.ts`,
    globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  }));
}

const projects =
  process.env.TEST_REDIS === 'cluster'
    ? [{ ...withInfrastructure, displayName: 'cluster', testMatch: CLUSTER.map((f) => `<rootDir>/${f}`) }]
    : [
        { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
        ...integrationProjects(),
        { ...withInfrastructure, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
      ];

module.exports = {
  projects,
  testTimeout: common.testTimeout,
  // unit first, then integration, then e2e: the fast tier fails first
  testSequencer: '<rootDir>/test/setup/tier-sequencer.js',
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
};
