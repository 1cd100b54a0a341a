/**
 * Every Lua script of the project reads its keys and arguments by the names its manifest entry gives them
 * (KEY.<name>, ARG.<name>; libs/redis lua-script.ts), and nothing else knows their positions. This spec
 * holds each manifest entry against its .lua file: a name the script (or a helper function it calls)
 * reads must be declared, and a declared name must be read; no script reads KEYS or ARGV by position; and
 * every .lua file of the project is a script or a helper of some manifest here, so a new one cannot slip by.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { LOCK_OWNED_LUA_FILE } from '@app/distributed-lock';
import { LOCK_LUA_DIR, LOCK_SCRIPTS } from '../../../libs/distributed-lock/src/lua/manifest';
import { LuaScript, LuaScriptSpec } from '@app/redis';
import {
  FENCED_WRITE,
  OWNED_SET,
  SET_ALL,
  SET_PAIR,
  TEST_HOLD_SCRIPTS,
  TEST_LUA_DIR,
} from '@test/support/lua/manifest';
import { CLAIM_DUE } from './expiry/shard-wake';
import {
  EVENT_SCRIPTS,
  eventScriptSpec,
  HOLD_HELPERS,
  HOLD_LUA_DIR,
  SEAT_MAP_SCRIPTS,
} from './hold-store/lua/manifest';
import { CLAIM_KEY, FREE_CLAIM } from './holds/idempotency/idempotency.service';
import { SETTLE_WITH_MALFORMED } from './outbox/outbox-streams';
import { SYNC_SCRIPT } from './rate-limit/synced-throttler.storage';
import { HEARTBEAT } from './shards/membership';
import { RELEASE, RENEW_AND_TAKE } from './shards/shard-leases';

const ROOT = resolve(__dirname, '..', '..', '..');
/** The reader every script runs first (it alone touches KEYS and ARGV). */
const READER = join(ROOT, 'libs/redis/src/lua/named-arguments.lua');

interface Checked {
  /** The script's file, absolute. */
  file: string;
  keys: readonly string[];
  argv: readonly string[];
  /** Helper files it runs with, absolute, in order. */
  helpers: string[];
  /** Helper functions called for it besides those its text calls (a library function's wrapper). */
  implicitCalls: string[];
}

const fromManifest = (dir: string, spec: LuaScriptSpec): Checked => ({
  file: resolve(dir, spec.file),
  keys: spec.keys,
  argv: spec.argv,
  helpers: (spec.uses ?? []).map((f) => resolve(dir, f)),
  implicitCalls: [],
});
const ofScript = (s: LuaScript<LuaScriptSpec>) => fromManifest(s.dir, s.spec);

/** The hold library's scripts: every helper file, and begin() / log_changes() run around each body. */
const holdLibrary = (
  own: { file: string; keys: readonly string[]; argv: readonly string[] },
  dir = HOLD_LUA_DIR,
) => ({
  ...fromManifest(dir, eventScriptSpec(own)),
  helpers: [LOCK_OWNED_LUA_FILE, ...HOLD_HELPERS.map((f) => join(HOLD_LUA_DIR, f))],
  implicitCalls: ['begin', 'log_changes'],
});

const SCRIPTS: Record<string, Checked> = {
  ...Object.fromEntries(Object.entries(EVENT_SCRIPTS).map(([n, s]) => [n, holdLibrary(s)])),
  ...Object.fromEntries(Object.entries(SEAT_MAP_SCRIPTS).map(([n, s]) => [n, fromManifest(HOLD_LUA_DIR, s)])),
  ...Object.fromEntries(Object.entries(LOCK_SCRIPTS).map(([n, s]) => [n, fromManifest(LOCK_LUA_DIR, s)])),
  claimKey: ofScript(CLAIM_KEY),
  freeClaim: ofScript(FREE_CLAIM),
  claimDueShards: ofScript(CLAIM_DUE),
  settleWithMalformed: ofScript(SETTLE_WITH_MALFORMED),
  heartbeat: ofScript(HEARTBEAT),
  renewShardLeases: ofScript(RENEW_AND_TAKE),
  releaseShardLeases: ofScript(RELEASE),
  syncedCounters: ofScript(SYNC_SCRIPT),
  ...Object.fromEntries(
    Object.entries(TEST_HOLD_SCRIPTS).map(([n, s]) => [`test ${n}`, holdLibrary(s, TEST_LUA_DIR)]),
  ),
  'test ownedSet': fromManifest(TEST_LUA_DIR, OWNED_SET),
  'test fencedWrite': fromManifest(TEST_LUA_DIR, FENCED_WRITE),
  'test setAll': fromManifest(TEST_LUA_DIR, SET_ALL),
  'test setPair': fromManifest(TEST_LUA_DIR, SET_PAIR),
};

const stripComments = (lua: string) => lua.replace(/--.*$/gm, '');
const reads = (lua: string, table: 'KEY' | 'ARG') =>
  new Set(
    [...stripComments(lua).matchAll(new RegExp(`\\b${table}\\.([A-Za-z_][A-Za-z0-9_]*)`, 'g'))].map(
      (m) => m[1],
    ),
  );
const declared = (names: readonly string[]) => new Set(names.map((n) => n.replace(/\.\.\.$/, '')));

/** A helper file's functions (each `local function` at the start of a line, to the next), by name. */
function functionsOf(files: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of files) {
    const text = stripComments(readFileSync(file, 'utf8'));
    const starts = [...text.matchAll(/^local function ([A-Za-z_][A-Za-z0-9_]*)/gm)];
    starts.forEach((m, i) => out.set(m[1], text.slice(m.index, starts[i + 1]?.index ?? text.length)));
  }
  return out;
}

/** What a script reads by name: its own text, and every helper function it calls, however deep. */
function needs(s: Checked): { keys: Set<string>; argv: Set<string> } {
  const fns = functionsOf(s.helpers);
  const own = stripComments(readFileSync(s.file, 'utf8'));
  const called = new Set<string>(s.implicitCalls);
  const texts = [own];
  for (let i = 0; i < texts.length; i++) {
    for (const name of fns.keys()) {
      if (!called.has(name) && new RegExp(`\\b${name}\\s*\\(`).test(texts[i])) {
        called.add(name);
      }
    }
    for (const name of called) {
      const body = fns.get(name);
      if (body !== undefined && !texts.includes(body)) {
        texts.push(body);
      }
    }
  }
  const all = texts.join('\n');
  return { keys: reads(all, 'KEY'), argv: reads(all, 'ARG') };
}

/** The differences between a manifest entry and what its script reads; empty when they agree. */
export function mismatches(s: Checked): string[] {
  const found = needs(s);
  const out: string[] = [];
  for (const [what, want, have] of [
    ['KEY', found.keys, declared(s.keys)],
    ['ARG', found.argv, declared(s.argv)],
  ] as const) {
    for (const n of want) {
      if (!have.has(n)) {
        out.push(`reads ${what}.${n}, which the manifest does not declare`);
      }
    }
    for (const n of have) {
      if (!want.has(n)) {
        out.push(`the manifest declares ${what === 'KEY' ? 'key' : 'argument'} ${n}, never read`);
      }
    }
  }
  return out;
}

function luaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) {
      return [];
    }
    return statSync(path).isDirectory() ? luaFiles(path) : name.endsWith('.lua') ? [path] : [];
  });
}

describe('Lua manifests', () => {
  it.each(Object.entries(SCRIPTS))('%s: the manifest names exactly what the script reads', (_name, s) => {
    expect(mismatches(s)).toEqual([]);
  });

  it('no script reads KEYS or ARGV by position: only the one reader does', () => {
    const positional = ['apps', 'libs', 'test', 'bench']
      .flatMap((d) => luaFiles(join(ROOT, d)))
      .filter((f) => f !== READER && /\b(KEYS|ARGV)\b/.test(stripComments(readFileSync(f, 'utf8'))));
    expect(positional.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('every .lua file is a script or a helper of a manifest checked here', () => {
    const known = new Set([READER, ...Object.values(SCRIPTS).flatMap((s) => [s.file, ...s.helpers])]);
    const unknown = ['apps', 'libs', 'test', 'bench']
      .flatMap((d) => luaFiles(join(ROOT, d)))
      .filter((f) => !known.has(f));
    expect(unknown.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('a manifest that disagrees with its script is caught, both ways', () => {
    const create = SCRIPTS.holdCreate;
    const withoutTtl = { ...create, argv: create.argv.filter((n) => n !== 'ttlMs') };
    expect(mismatches(withoutTtl)).toEqual(['reads ARG.ttlMs, which the manifest does not declare']);
    const withExtra = { ...create, argv: [...create.argv.slice(0, -1), 'spare', create.argv.at(-1)!] };
    expect(mismatches(withExtra)).toEqual(['the manifest declares argument spare, never read']);
  });
});
