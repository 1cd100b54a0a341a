/**
 * The import boundaries of eslint.config.mjs hold: each case lints one import line as if it
 * were written in a file of the given folder, with the repository's real ESLint configuration, and checks
 * that `no-restricted-imports` refuses it or lets it through; every folder of the seat API is in the
 * feature order; and the code as it is has no violation.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const API = 'apps/seat-api/src';

const REFUSED: [file: string, source: string][] = [
  // apps and libraries
  [`${API}/holds/holds.service.ts`, '../../../expiry-consumer/src/create-consumer'],
  ['apps/expiry-consumer/src/consumer.module.ts', '../../seat-api/src/hold-store'],
  ['libs/kafka/src/kafka.module.ts', '../../../apps/seat-api/src/app.module'],
  // the lower layers import no feature
  [`${API}/common/validation.ts`, '../hold-store'],
  [`${API}/auth/jwt-auth.guard.ts`, '../rate-limit/rate-limit.decorator'],
  [`${API}/hold-store/hold.store.ts`, '../holds/holds.service'],
  [`${API}/hold-store/lua/manifest.ts`, '../../holds/hold-errors'],
  // the catalogue uses the hold store, never the rest of holds
  [`${API}/catalogue/catalogue.service.ts`, '../holds/holds.service'],
  [`${API}/seat-map/seat-map.service.ts`, '../holds/hold.view'],
  [`${API}/catalogue/dto/create-event.dto.ts`, '../../holds/confirm/confirm.module'],
  // holds use the catalogue's public surface only, and nothing above them
  [`${API}/holds/holds.service.ts`, '../catalogue/seat-cache'],
  [`${API}/holds/confirm/confirm-hold.use-case.ts`, '../../catalogue/catalogue.controller'],
  [`${API}/holds/holds.service.ts`, '../expiry/sweeper.service'],
  // the audit sits between the catalogue and holds, and uses the catalogue's public surface only
  [`${API}/catalogue/catalogue.service.ts`, '../audit/audit.module'],
  [`${API}/audit/audit-log.ts`, '../holds/holds.service'],
  [`${API}/audit/audit-log.ts`, '../catalogue/seat-cache'],
  // the seat API's waiting list uses holds' public surface, and nothing uses it
  [`${API}/waitlist/waitlist.service.ts`, '../holds/confirm/confirm.module'],
  [`${API}/waitlist/waitlist.service.ts`, '../seat-map/seat-map.service'],
  [`${API}/holds/holds.service.ts`, '../waitlist/waitlist.service'],
  // expiry: the store and the confirm rule only
  [`${API}/expiry/sweeper.service.ts`, '../holds/holds.service'],
  [`${API}/expiry/sweeper.service.ts`, '../catalogue/catalogue.service'],
  // the outbox and shard ownership sit below expiry: neither reaches up into it, nor into holds
  [`${API}/outbox/outbox-relay.service.ts`, '../expiry/sweeper.service'],
  [`${API}/shards/shard-ownership.service.ts`, '../outbox/outbox-relay.service'],
  [`${API}/outbox/outbox-meter.ts`, '../holds/holds.service'],
  // expiry and health use the outbox's public surface only
  [`${API}/expiry/sweeper.service.ts`, '../outbox/outbox-meter'],
  [`${API}/health/health.controller.ts`, '../expiry/sweeper.service'],
  [`${API}/health/health.controller.ts`, '../outbox/outbox-streams'],
  [`${API}/health/health.controller.ts`, '../shards/shard-ownership.service'],
  // only the composition root imports it
  [`${API}/holds/holds.module.ts`, '../app.module'],
  [`${API}/catalogue/catalogue.service.ts`, '../bootstrap/create-app'],
];

const ALLOWED: [file: string, source: string][] = [
  ['libs/database/src/data-source.ts', '@app/config'],
  [`${API}/catalogue/catalogue.service.ts`, '../hold-store'],
  [`${API}/holds/holds.service.ts`, '../catalogue/catalogue.service'],
  [`${API}/holds/holds.module.ts`, '../catalogue/catalogue.module'],
  [`${API}/holds/holds.service.ts`, '../audit/audited-actions'],
  [`${API}/audit/audit.module.ts`, '../catalogue/catalogue.module'],
  [`${API}/waitlist/waitlist.service.ts`, '../holds/holds.service'],
  [`${API}/waitlist/waitlist.controller.ts`, '../holds/allocation/best-available.dto'],
  [`${API}/waitlist/waitlist.service.ts`, '../catalogue/policy/event-policy.service'],
  [`${API}/holds/confirm/confirm-settlement.ts`, '../../hold-store'],
  [`${API}/hold-store/lua/manifest.ts`, '../hold-keys'],
  [`${API}/expiry/confirm-reconciler.service.ts`, '../holds/confirm/confirm-settlement'],
  [`${API}/outbox/outbox-meter.ts`, '../hold-store'],
  [`${API}/outbox/outbox-relay.service.ts`, '../shards/shard-ownership.service'],
  [`${API}/expiry/sweeper.service.ts`, '../outbox/outbox-relay.service'],
  [`${API}/seat-map/seat-map.service.ts`, '../catalogue/catalogue.service'],
  [`${API}/seat-map/snapshot/seat-layout.ts`, '../../catalogue/seat-cache'], // allowed on purpose (see config)
  [`${API}/health/health.module.ts`, '../outbox/outbox.module'],
  [`${API}/rate-limit/rate-limit.guard.ts`, '../auth/auth-user'],
  [`${API}/bootstrap/create-app.ts`, '../app.module'],
  [`${API}/hold-store/hold-lifecycle.int-spec.ts`, '../../../../test/support/eventually'], // specs are exempt
];

/**
 * Every folder of the seat API but the composition root has its place in the feature order: only a folder
 * listed there gets the rule that keeps bootstrap/ out of it.
 */
const FOLDERS = readdirSync(join(root, API), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'bootstrap')
  .map((d) => d.name);
const IN_ORDER: [file: string, source: string][] = FOLDERS.map((dir) => [
  `${API}/${dir}/any.ts`,
  '../bootstrap/create-app',
]);

let refused: string[][];
let allowed: string[][];
let inOrder: string[][];
let violations: string[];

beforeAll(() => {
  const cases = [...REFUSED, ...ALLOWED, ...IN_ORDER].map(([file, source]) => ({ file, source }));
  const files = [
    `${API}/**/*.ts`,
    'apps/expiry-consumer/src/**/*.ts',
    'apps/waitlist/src/**/*.ts',
    'libs/**/*.ts',
  ];
  const out = execFileSync(process.execPath, [join(__dirname, 'lint-imports.js')], {
    cwd: root,
    input: JSON.stringify({ cases, files }),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const result = JSON.parse(out) as { cases: string[][]; files: string[] };
  refused = result.cases.slice(0, REFUSED.length);
  allowed = result.cases.slice(REFUSED.length, REFUSED.length + ALLOWED.length);
  inOrder = result.cases.slice(REFUSED.length + ALLOWED.length);
  violations = result.files;
});

it.each(REFUSED.map((c, i) => [...c, i] as const))('refuses %s importing %s', (_f, _s, i) => {
  expect(refused[i]).toHaveLength(1);
});

it.each(ALLOWED.map((c, i) => [...c, i] as const))('lets %s import %s', (_f, _s, i) => {
  expect(allowed[i]).toEqual([]);
});

it.each(FOLDERS.map((dir, i) => [dir, i] as const))('has %s/ in the feature order', (_dir, i) => {
  expect(inOrder[i]).toHaveLength(1);
});

it('finds no violation in the code as it is', () => {
  expect(violations).toEqual([]);
});
