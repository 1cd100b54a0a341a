import { createHash } from 'node:crypto';
import { LOCK_OWNED_LUA } from '@app/distributed-lock';
import { luaConstants, LuaScriptSpec, readLua } from '@app/redis';
import { HOLD_CONSTANTS, HOLD_HELPERS } from './manifest';

/**
 * What every hold script runs on: the manifest's constants, the lock library's ownership check
 * (LOCK_OWNED_LUA, its documented contract for a store's own scripts) and the helper files.
 * `statusStream`: whether the scripts record their changes for the seat.status topic
 * (SEAT_STATUS_STREAM_ENABLED); a constant of the code, so the library's name differs with it.
 */
export function holdDefinitions(statusStream = true): string {
  return [
    luaConstants({ ...HOLD_CONSTANTS, SEAT_STATUS_STREAM: statusStream ? 1 : 0 }),
    LOCK_OWNED_LUA,
    ...HOLD_HELPERS.map((file) => readLua(__dirname, file)),
  ].join('\n');
}

export const HOLD_DEFINITIONS = holdDefinitions();

/**
 * A hold script's body (a file of this folder, or a test's own Lua) as one EVAL: the definitions, begin(),
 * then the body as a function, so whichever `return` it leaves by, the changes it made are recorded in the
 * seat-map change log before the reply goes out (log_changes(), change-log.lua). For tests and rare
 * scripts: the store's own run as functions of the library below, which defines everything once.
 */
export function holdScript(body: string): string {
  return `${HOLD_DEFINITIONS}
begin()
local function script_body()
${body}
end
local reply = script_body()
log_changes()
return reply
`;
}

export interface HoldLibrary {
  /** Library name: `seathold_<hash>` of its code, so two versions of the service never replace each other's. */
  name: string;
  /** FUNCTION LOAD text. */
  code: string;
  /** Script name -> the name of its function (FCALL). */
  functions: Record<string, string>;
}

/**
 * The hold scripts as one Redis function library (Redis 7 FUNCTION LOAD, called with FCALL). Why not
 * EVALSHA: an EVAL script runs its whole text on every call, and the helpers define some 40 functions,
 * each a closure Redis's Lua creates anew: Redis CPU spent on every hold before it does anything. A
 * library runs its definitions once, when loaded; each call only sets its keys, arguments and time
 * (begin()) and runs its body, then records its seat changes (log_changes()).
 *
 * Each call is still atomic and single-slot, exactly like an EVAL of the script. Per-call state lives in
 * library locals that begin() resets, and Redis runs one function at a time. The name carries a hash of
 * the code, so during a rolling deploy each version calls its own functions.
 */
export function holdLibrary(
  scripts: Record<string, Pick<LuaScriptSpec, 'file'>>,
  statusStream = true,
): HoldLibrary {
  const definitions = holdDefinitions(statusStream);
  const bodies = Object.entries(scripts).map(
    ([name, spec]) => [name, readLua(__dirname, spec.file)] as const,
  );
  const hash = createHash('sha1')
    .update(definitions)
    .update(JSON.stringify(bodies))
    .digest('hex')
    .slice(0, 12);
  const name = `seathold_${hash}`;
  const functions: Record<string, string> = {};
  const parts = [
    `#!lua name=${name}`,
    '-- per call: set by each function wrapper before begin()',
    'local KEYS, ARGV',
    definitions,
  ];
  for (const [script, body] of bodies) {
    const fn = `${script}_${hash}`;
    functions[script] = fn;
    parts.push(
      `local function body_${script}()\n${body}\nend`,
      `redis.register_function('${fn}', function(keys, args)
  KEYS, ARGV = keys, args
  begin()
  local reply = body_${script}()
  log_changes()
  return reply
end)`,
    );
  }
  return { name, code: parts.join('\n'), functions };
}
