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
// Feature folders of apps/seat-api/src depend one way, from the bottom up:
//   common      shared plumbing (errors, pipes, caches, validation): imports no feature
//   auth        -> common
//   rate-limit  -> auth, common
//   hold-store  the Redis hold store, the shared lower layer every feature may use: imports no feature
//   catalogue   -> hold-store, rate-limit, auth, common; never holds
//   holds       -> catalogue's public surface only (catalogue.service, catalogue.module), hold-store, ...
//   seat-map    -> catalogue's public surface (+ catalogue/seat-cache, see below), hold-store, ...
//   shards      -> hold-store: which instance sweeps and relays each shard
//   outbox      -> shards, hold-store: every seat change's records, from Redis streams to Kafka
//   expiry      -> the outbox's public surface (outbox.module, outbox-relay.service), shards, hold-store,
//                  the confirm rule (holds/confirm: confirm.module, confirm-settlement)
//   health      -> the outbox's public surface only (never expiry/ or shards/)
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
const folder = (name, why) => ban(`(^|/)${name}(/|$)`, why);
const below = (who) =>
  `${who} is lower in the feature order (see eslint.config.mjs) and must not depend on it.`;
const NOT_UPPER = (who, names) => names.map((n) => folder(n, below(who)));
/** holds/ except the given entry points. */
const holdsExcept = (who, allowed) =>
  ban(`(^|/)holds/(?!(${allowed.join('|')})$)`, `${who} may use holds/ only through ${allowed.join(', ')}.`);

/** outbox/ except its public surface: the module and the relay (whose records the sweeper announces). */
const OUTBOX_SURFACE = (who) =>
  ban(
    '(^|/)outbox/(?!(outbox\\.module|outbox-relay\\.service)$)',
    `${who} may use the outbox only through its public surface: outbox.module, outbox-relay.service.`,
  );

/** One config object per folder: a file gets exactly one `no-restricted-imports` (later ones replace it). */
const seatApiFolder = (dir, patterns, ignores = []) => ({
  files: [`${SEAT_API}/${dir}/**/*.ts`],
  ignores: [...SPECS, ...ignores],
  rules: restrict([NOT_CONSUMER, NOT_WAITLIST_APP, NOT_ROOT, ...patterns]),
});

const boundaries = [
  { files: ['apps/seat-api/**/*.ts'], rules: restrict([NOT_CONSUMER, NOT_WAITLIST_APP]) },
  { files: ['apps/expiry-consumer/**/*.ts'], rules: restrict([NOT_SEAT_API, NOT_WAITLIST_APP]) },
  { files: ['apps/waitlist/**/*.ts'], rules: restrict([NOT_SEAT_API, NOT_CONSUMER]) },
  { files: ['libs/**/*.ts'], rules: restrict([NOT_APPS]) },
  seatApiFolder(
    'common',
    NOT_UPPER('common', [
      'hold-store',
      'auth',
      'rate-limit',
      'holds',
      'catalogue',
      'seat-map',
      'shards',
      'outbox',
      'expiry',
      'health',
      'seat-picker',
    ]),
  ),
  seatApiFolder(
    'auth',
    NOT_UPPER('auth', [
      'rate-limit',
      'holds',
      'catalogue',
      'seat-map',
      'shards',
      'outbox',
      'expiry',
      'health',
      'seat-picker',
    ]),
  ),
  seatApiFolder(
    'rate-limit',
    NOT_UPPER('rate-limit', [
      'holds',
      'catalogue',
      'seat-map',
      'shards',
      'outbox',
      'expiry',
      'health',
      'seat-picker',
    ]),
  ),
  seatApiFolder('catalogue', [
    folder('holds', 'catalogue/ uses the hold store (hold-store/), never holds/.'),
    ...NOT_UPPER('catalogue', ['seat-map', 'shards', 'outbox', 'expiry', 'health', 'seat-picker']),
  ]),
  seatApiFolder('holds', [
    ban(
      '(^|/)catalogue/(?!(catalogue\\.(service|module)|policy/event-policy(\\.service)?)$)',
      'holds/ may use the catalogue only through its public surface: catalogue.service, catalogue.module, policy/event-policy(.service).',
    ),
    ...NOT_UPPER('holds', ['seat-map', 'shards', 'outbox', 'expiry', 'health', 'seat-picker']),
  ]),
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
  seatApiFolder('seat-map', [
    // Allowed on purpose: the seat map sizes its snapshots with the catalogue's seat layout types and
    // estimator (catalogue/seat-cache.ts). They belong on the catalogue's public surface; until they
    // move, this one internal file is allowed.
    ban(
      '(^|/)catalogue/(?!(catalogue\\.(service|module)|seat-cache)$)',
      'seat-map/ may use the catalogue only through its public surface: catalogue.service, catalogue.module.',
    ),
    folder('holds', 'seat-map/ uses the hold store (hold-store/), never holds/.'),
    ...NOT_UPPER('seat-map', ['shards', 'outbox', 'expiry', 'health', 'seat-picker']),
  ]),
  seatApiFolder('shards', [
    folder('holds', 'shards/ uses the hold store (hold-store/), never holds/.'),
    ...NOT_UPPER('shards', ['catalogue', 'seat-map', 'outbox', 'expiry', 'health', 'seat-picker']),
  ]),
  seatApiFolder('outbox', [
    folder('holds', 'outbox/ uses the hold store (hold-store/), never holds/.'),
    ...NOT_UPPER('outbox', ['catalogue', 'seat-map', 'expiry', 'health', 'seat-picker']),
  ]),
  seatApiFolder('expiry', [
    holdsExcept('expiry', ['confirm/confirm\\.module', 'confirm/confirm-settlement']),
    OUTBOX_SURFACE('expiry'),
    ...NOT_UPPER('expiry', ['catalogue', 'seat-map', 'health', 'seat-picker']),
  ]),
  seatApiFolder('health', [
    OUTBOX_SURFACE('health'),
    ...NOT_UPPER('health', ['holds', 'catalogue', 'seat-map', 'shards', 'expiry', 'seat-picker']),
  ]),
  seatApiFolder(
    'seat-picker',
    NOT_UPPER('seat-picker', ['holds', 'catalogue', 'seat-map', 'shards', 'outbox', 'expiry', 'health']),
  ),
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
