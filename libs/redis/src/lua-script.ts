import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A value TypeScript hands to Lua as a constant: a number, a string, or a flat list or record of them (a
 * record's integer keys become Lua's [n] keys).
 */
export type LuaConstant =
  number | string | readonly (number | string)[] | { readonly [key: string]: number | string };

/**
 * A script's entry in its manifest: the file its Lua lives in, and what each call passes, in order.
 * A name ending in '...' stands for all the remaining KEYS or ARGV (any number of them).
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

/**
 * Reads a .lua file relative to `dir`, the __dirname of the module that names it. The .lua files sit beside
 * the TypeScript that loads them; the build copies them to the same relative place beside the compiled
 * JavaScript (nest-cli.json's assets), so one path works from source (jest, swc-node) and from dist.
 */
export function readLua(dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8');
}

/** The key count to pass to defineCommand: fixed when every key is named, else undefined (passed per call). */
export function fixedKeyCount(spec: Pick<LuaScriptSpec, 'keys'>): number | undefined {
  return spec.keys.some((k) => k.endsWith('...')) ? undefined : spec.keys.length;
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
 * The whole text of a script: its constants, the helper files it uses, then its own file; what
 * defineCommand, EVAL or FUNCTION LOAD is given.
 */
export function luaScript(dir: string, spec: LuaScriptSpec): string {
  const parts = [spec.constants ? luaConstants(spec.constants) : ''];
  for (const file of [...(spec.uses ?? []), spec.file]) {
    parts.push(readLua(dir, file));
  }
  return parts.join('');
}
