// Type-aware lint: promise misuse is an error because an unawaited Redis/Kafka call is a lost write.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// ---------------------------------------------------------------------------------------------------
// Import boundaries, as `no-restricted-imports` patterns in the manner of Immich. ESLint does
// not resolve paths, so each pattern is a regular expression on the import string as written: relative
// imports name folders (`../hold-store`, `../../catalogue/catalogue.service`), which is what is matched.
//
// Apps and libraries: no app imports another app (shared code goes to libs/, e.g. libs/contracts), and
// libraries never import an app.
//
// Feature folders of apps/seat-api/src depend one way, from the bottom up: FEATURE_ORDER below lists,
// for each folder, the folders it may import, all of them earlier in the list (checked below); any other
// feature folder is refused. Where a folder is used through some of its files only (its public surface),
// those are named: the catalogue's is catalogue.service, catalogue.module, policy/event-policy(.service);
// the outbox's is outbox.module, outbox-relay.service (the relay, whose records the sweeper announces).
//   common      shared plumbing (errors, pipes, caches, validation): imports no feature
//   auth        -> common
//   rate-limit  -> auth, common
//   hold-store  the Redis hold store: imports nothing of the app
//   catalogue   -> hold-store, auth, common
//   audit       -> the catalogue's public surface, hold-store, auth, common
//   pricing     -> audit, the catalogue's public surface, rate-limit, auth, common: price lists, promo
//                  codes and the one price calculator
//   queue       -> audit, the catalogue's public surface, hold-store, rate-limit, auth, common: on-sale
//                  queues, and the admission passes the gate of holds reads
//   holds       -> queue, pricing, audit, the catalogue's public surface, hold-store, rate-limit, auth,
//                  common
//   waitlist    -> holds (holds.module, holds.service, allocation/best-available.dto), the catalogue's
//                  public surface, auth, common (the seat API's HTTP side of the waiting list)
//   seat-map    -> the catalogue's public surface (+ catalogue/seat-cache, see below), hold-store,
//                  rate-limit, auth, common
//   shards      -> hold-store, common: which instance sweeps and relays each shard
//   outbox      -> shards, hold-store, common: every seat change's records, from Redis streams to Kafka
//   expiry      -> the outbox's public surface, shards, the confirm rule (holds/confirm: confirm.module,
//                  confirm-settlement), hold-store, auth, common
//   health      -> the outbox's public surface, auth
//   seat-picker imports no feature
// and only the composition root (app.module.ts, main.ts, bootstrap/) imports app.module or bootstrap/.
// Specs are exempt from the folder rules (they reach into what they test), not from the app rules.
// ---------------------------------------------------------------------------------------------------
const SEAT_API = 'apps/seat-api/src';
const SPECS = [`${SEAT_API}/**/*.spec.ts`, `${SEAT_API}/**/*.int-spec.ts`];
const ban = (regex, message) => ({ regex, message });
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

const NOT_CONSUMER = ban(
  '(^|/)expiry-consumer/',
  'No app imports another app: shared code belongs in libs/.',
);
const NOT_SEAT_API = ban('(^|/)seat-api/', 'No app imports another app: shared code belongs in libs/.');
// apps/waitlist's sources; the seat API's own waitlist/ folder (the HTTP side) has no src/
const NOT_WAITLIST_APP = ban(
  '(^|/)waitlist/src(/|$)',
  'No app imports another app: shared code belongs in libs/.',
);
const NOT_APPS = ban('(^|/)apps/', 'Libraries never import an app: pass what they need in as options.');
const NOT_ROOT = ban(
  '(^|/)(app\\.module|main)$|(^|/)bootstrap/',
  'Only the composition root (app.module.ts, main.ts, bootstrap/) imports app.module or bootstrap/.',
);

/** A folder used through these files only (paths inside it, without `.ts`). */
const surface = (name, files) => ({ name, files });
const CATALOGUE = surface('catalogue', [
  'catalogue.service',
  'catalogue.module',
  'policy/event-policy',
  'policy/event-policy.service',
]);
const OUTBOX = surface('outbox', ['outbox.module', 'outbox-relay.service']);

const FEATURE_ORDER = [
  ['common', []],
  ['auth', ['common']],
  ['rate-limit', ['auth', 'common']],
  ['hold-store', []], // and nothing of the app at all: see its own rule below
  ['catalogue', ['hold-store', 'auth', 'common']],
  ['audit', [CATALOGUE, 'hold-store', 'auth', 'common']],
  ['pricing', ['audit', CATALOGUE, 'rate-limit', 'auth', 'common']],
  ['queue', ['audit', CATALOGUE, 'hold-store', 'rate-limit', 'auth', 'common']],
  ['holds', ['queue', 'pricing', 'audit', CATALOGUE, 'hold-store', 'rate-limit', 'auth', 'common']],
  [
    'waitlist',
    [
      surface('holds', ['holds.module', 'holds.service', 'allocation/best-available.dto']),
      CATALOGUE,
      'auth',
      'common',
    ],
  ],
  [
    'seat-map',
    [
      // Allowed on purpose: the seat map sizes its snapshots with the catalogue's seat layout types and
      // estimator (catalogue/seat-cache.ts). They belong on the catalogue's public surface; until they
      // move, this one internal file is allowed.
      surface('catalogue', [...CATALOGUE.files, 'seat-cache']),
      'hold-store',
      'rate-limit',
      'auth',
      'common',
    ],
  ],
  ['shards', ['hold-store', 'common']],
  ['outbox', ['shards', 'hold-store', 'common']],
  [
    'expiry',
    [
      OUTBOX,
      'shards',
      surface('holds', ['confirm/confirm.module', 'confirm/confirm-settlement']),
      'hold-store',
      'auth',
      'common',
    ],
  ],
  ['health', [OUTBOX, 'auth']],
  ['seat-picker', []],
];
const FEATURES = FEATURE_ORDER.map(([name]) => name);

/** A relative import that names the folder `name` (`../holds`, `../../holds/confirm/x`). */
const into = (name) => `^\\.\\.?/(.*/)?${name}`;
const escape = (path) => path.replace(/\./g, '\\.');

/** The patterns of one feature folder: every other feature it does not list is refused. */
function featureRules(who, allowed) {
  const surfaces = new Map(allowed.map((a) => (typeof a === 'string' ? [a, null] : [a.name, a.files])));
  const list = [...surfaces.keys()].join(', ') || 'no feature';
  const order = `${who}/ imports ${list} only (FEATURE_ORDER in eslint.config.mjs).`;
  return FEATURES.filter((name) => name !== who && surfaces.get(name) !== null).map((name) => {
    const files = surfaces.get(name);
    return files
      ? ban(
          `${into(name)}/(?!(${files.map(escape).join('|')})$)`,
          `${who}/ may use ${name}/ only through ${files.join(', ')}.`,
        )
      : ban(`${into(name)}(/|$)`, order);
  });
}

// The order is one way: a folder lists only folders earlier in FEATURE_ORDER.
FEATURE_ORDER.forEach(([who, allowed], i) => {
  for (const a of allowed) {
    const name = typeof a === 'string' ? a : a.name;
    if (!FEATURES.slice(0, i).includes(name)) {
      throw new Error(`eslint.config.mjs: ${who} lists ${name}, which is not below it in FEATURE_ORDER`);
    }
  }
});

/** One config object per folder: a file gets exactly one `no-restricted-imports` (later ones replace it). */
const seatApiFolder = ([dir, allowed]) => ({
  files: [`${SEAT_API}/${dir}/**/*.ts`],
  ignores: SPECS,
  rules: restrict([NOT_CONSUMER, NOT_WAITLIST_APP, NOT_ROOT, ...featureRules(dir, allowed)]),
});

const boundaries = [
  { files: ['apps/seat-api/**/*.ts'], rules: restrict([NOT_CONSUMER, NOT_WAITLIST_APP]) },
  { files: ['apps/expiry-consumer/**/*.ts'], rules: restrict([NOT_SEAT_API, NOT_WAITLIST_APP]) },
  { files: ['apps/waitlist/**/*.ts'], rules: restrict([NOT_SEAT_API, NOT_CONSUMER]) },
  { files: ['libs/**/*.ts'], rules: restrict([NOT_APPS]) },
  ...FEATURE_ORDER.filter(([dir]) => dir !== 'hold-store').map(seatApiFolder),
  // The hold store imports nothing of the app: from hold-store/*.ts any `../` leaves it, from its
  // subfolders (lua/) any `../../` does.
  {
    files: [`${SEAT_API}/hold-store/*.ts`],
    ignores: SPECS,
    rules: restrict([
      NOT_CONSUMER,
      ban('^\\.\\./', 'hold-store is the lowest layer: it imports nothing of the app.'),
    ]),
  },
  {
    files: [`${SEAT_API}/hold-store/*/**/*.ts`],
    ignores: SPECS,
    rules: restrict([
      NOT_CONSUMER,
      ban('^\\.\\./\\.\\./', 'hold-store is the lowest layer: it imports nothing of the app.'),
    ]),
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.infra/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // response bodies are JSON of known shape, asserted by the tests themselves
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  ...boundaries,
);
