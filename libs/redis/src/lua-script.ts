import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * A value TypeScript hands to Lua as a constant: a number, a string, or a flat list or record of them (a
 * record's integer keys become Lua's [n] keys).
 */
export type LuaConstant =
  number | string | readonly (number | string)[] | { readonly [key: string]: number | string };

/**
 * A script's entry in its manifest: the file its Lua lives in, and the names of what each call passes, in
 * order. The manifest is the one place that knows positions: the script reads `KEY.<name>` and
 * `ARG.<name>` (a reader generated from these names, lua/named-arguments.lua), and TypeScript builds a
 * call from the same names (luaCall). A name ending in '...' stands for all the remaining KEYS or ARGV,
 * any number of them, read as one list under the name without the dots (`seatIds...` -> `ARG.seatIds`).
 */
export interface LuaScriptSpec {
  /** The script's .lua file, relative to the manifest's folder. */
  file: string;
  keys: readonly string[];
  argv: readonly string[];
  /** Helper files put before the script's own, in order (relative to the manifest's folder). */
  uses?: readonly string[];
  /** Values from TypeScript the Lua reads as locals, declared ahead of everything else. */
  constants?: Readonly<Record<string, LuaConstant>>;
}

/** What a script is sent: keys are strings, arguments strings or numbers. */
export type LuaValue = string | number;

/**
 * A call's values by name, typed from a manifest entry declared `as const`: one value per plain name, a
 * list for the '...' name.
 */
export type LuaNamed<Names extends readonly string[]> = {
  readonly [N in Names[number] as N extends `${infer R}...` ? R : N]: N extends `${string}...`
    ? readonly LuaValue[]
    : LuaValue;
};

/** KEYS and ARGV of one call, in the order of the manifest. */
export interface LuaCall {
  keys: string[];
  args: LuaValue[];
}

const LUA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A list of names split into the named positions and the name of the rest ('...'), checked. */
function namesOf(names: readonly string[], what: string): { fixed: string[]; rest: string | null } {
  const fixed = names.filter((n) => !n.endsWith('...'));
  const rest = names.length > fixed.length ? names[names.length - 1].slice(0, -3) : null;
  if (
    fixed.length + (rest === null ? 0 : 1) !== names.length ||
    (rest !== null && !names.at(-1)!.endsWith('...'))
  ) {
    throw new Error(`${what}: only the last name may end in '...'`);
  }
  const all = rest === null ? fixed : [...fixed, rest];
  for (const n of all) {
    if (!LUA_NAME.test(n)) {
      throw new Error(`${what}: ${JSON.stringify(n)} is not a plain name`);
    }
  }
  if (new Set(all).size !== all.length) {
    throw new Error(`${what}: a name is given twice`);
  }
  return { fixed, rest };
}

/**
 * Flattens one call's named values in the manifest's order: a name missing, or one the manifest does not
 * have, is thrown out here, before Redis (the script's reader refuses a list of the wrong length too).
 */
export function luaCall(
  spec: Pick<LuaScriptSpec, 'file' | 'keys' | 'argv'>,
  keys: Readonly<Record<string, LuaValue | readonly LuaValue[]>>,
  args: Readonly<Record<string, LuaValue | readonly LuaValue[]>>,
): LuaCall {
  return {
    keys: flatten(spec.keys, keys, `${spec.file} KEYS`).map(String),
    args: flatten(spec.argv, args, `${spec.file} ARGV`),
  };
}

function flatten(
  names: readonly string[],
  values: Readonly<Record<string, LuaValue | readonly LuaValue[]>>,
  what: string,
): LuaValue[] {
  const { fixed, rest } = namesOf(names, what);
  const unknown = Object.keys(values).filter((k) => !fixed.includes(k) && k !== rest);
  if (unknown.length > 0) {
    throw new Error(`${what}: no such name ${unknown.join(', ')}`);
  }
  const out: LuaValue[] = [];
  for (const n of fixed) {
    const v = values[n];
    if (v === undefined || Array.isArray(v)) {
      throw new Error(`${what}: ${n} needs one value`);
    }
    out.push(v as LuaValue);
  }
  if (rest !== null) {
    const more = values[rest];
    if (!Array.isArray(more)) {
      throw new Error(`${what}: ${rest} needs a list`);
    }
    out.push(...(more as LuaValue[]));
  }
  return out;
}

/** The reader of every script's keys and arguments by name (lua/named-arguments.lua): defines named(). */
export const NAMED_ARGUMENTS_LUA = readFileSync(join(__dirname, 'lua', 'named-arguments.lua'), 'utf8');

/**
 * The Lua that reads one call's KEYS and ARGV into `KEY` and `ARG` by the manifest's names (named(),
 * NAMED_ARGUMENTS_LUA): `keysVar`, `argvVar` are where the call's lists are (EVAL's KEYS and ARGV, or a
 * library function's parameters).
 */
export function luaReader(
  spec: Pick<LuaScriptSpec, 'file' | 'keys' | 'argv'>,
  keysVar = 'KEYS',
  argvVar = 'ARGV',
): string {
  const read = (names: readonly string[], list: string, what: string) => {
    const { fixed, rest } = namesOf(names, `${spec.file} ${what}`);
    const quoted = fixed.map((n) => `'${n}'`).join(', ');
    return `named(${list}, { ${quoted} }, ${rest === null ? 'nil' : `'${rest}'`}, '${spec.file} ${what}')`;
  };
  return `KEY, ARG = ${read(spec.keys, keysVar, 'KEYS')}, ${read(spec.argv, argvVar, 'ARGV')}\n`;
}

/**
 * Reads a .lua file relative to `dir`, the __dirname of the module that names it. The .lua files sit beside
 * the TypeScript that loads them; the build copies them to the same relative place beside the compiled
 * JavaScript (nest-cli.json's assets), so one path works from source (jest, swc-node) and from dist.
 */
export function readLua(dir: string, file: string): string {
  return readFileSync(resolve(dir, file), 'utf8');
}

/** `local NAME = value` per constant: how values defined in TypeScript reach the Lua that uses them. */
export function luaConstants(constants: Readonly<Record<string, LuaConstant>>): string {
  return Object.entries(constants)
    .map(([name, value]) => `local ${name} = ${luaValue(value)}\n`)
    .join('');
}

function luaValue(value: LuaConstant): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new Error(`a Lua constant is a finite number, not ${value}`);
    }
    return String(value);
  }
  if (typeof value === 'string') {
    if ([...value].some((c) => c.charCodeAt(0) < 0x20)) {
      throw new Error(`a Lua constant is printable text, not ${JSON.stringify(value)}`);
    }
    return JSON.stringify(value); // without control characters, a valid Lua string literal too
  }
  if (Array.isArray(value)) {
    return `{ ${(value as (number | string)[]).map((v) => luaValue(v)).join(', ')} }`;
  }
  const fields = Object.entries(value).map(([k, v]) => {
    if (/^(0|[1-9][0-9]*)$/.test(k)) {
      return `[${k}] = ${luaValue(v)}`;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      throw new Error(`a Lua constant's field is a plain name or an integer, not ${JSON.stringify(k)}`);
    }
    return `${k} = ${luaValue(v)}`;
  });
  return `{ ${fields.join(', ')} }`;
}

/**
 * The whole text of a script: its constants, the reader of its keys and arguments by name (KEY, ARG), the
 * helper files it uses, then its own file; what EVAL is given.
 */
export function luaScript(dir: string, spec: LuaScriptSpec): string {
  const parts = [
    spec.constants ? luaConstants(spec.constants) : '',
    NAMED_ARGUMENTS_LUA,
    'local KEY, ARG\n',
    luaReader(spec),
  ];
  for (const file of [...(spec.uses ?? []), spec.file]) {
    parts.push(readLua(dir, file));
  }
  return parts.join('');
}
