import { createHash } from 'node:crypto';
import { LOCK_OWNED_LUA_FILE } from '@app/distributed-lock';
import { luaConstants, luaReader, LuaScriptSpec, NAMED_ARGUMENTS_LUA, readLua } from '@app/redis';
import { eventScriptSpec, HOLD_CONSTANTS, HOLD_HELPERS } from './manifest';

/**
 * What every hold script runs on: the manifest's constants, the reader of each call's keys and arguments
 * by name (KEY, ARG: NAMED_ARGUMENTS_LUA), the lock library's ownership check (LOCK_OWNED_LUA_FILE, its
 * documented contract for a store's own scripts) and the helper files.
 * `statusStream`: whether the scripts record their changes for the seat.status topic
 * (SEAT_STATUS_STREAM_ENABLED); a constant of the code, so the library's name differs with it.
 */
export function holdDefinitions(statusStream = true): string {
  return [
    luaConstants({ ...HOLD_CONSTANTS, SEAT_STATUS_STREAM: statusStream ? 1 : 0 }),
    NAMED_ARGUMENTS_LUA,
    "-- per call: the call's keys and arguments by name (set by each function wrapper before begin())",
    'local KEY, ARG',
    readLua(__dirname, LOCK_OWNED_LUA_FILE),
    ...HOLD_HELPERS.map((file) => readLua(__dirname, file)),
  ].join('\n');
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
  scripts: Record<string, Pick<LuaScriptSpec, 'file' | 'keys' | 'argv'>>,
  statusStream = true,
): HoldLibrary {
  const definitions = holdDefinitions(statusStream);
  const bodies = Object.entries(scripts).map(
    ([name, spec]) =>
      [name, readLua(__dirname, spec.file), luaReader(eventScriptSpec(spec), 'keys', 'args')] as const,
  );
  const hash = createHash('sha1')
    .update(definitions)
    .update(JSON.stringify(bodies))
    .digest('hex')
    .slice(0, 12);
  const name = `seathold_${hash}`;
  const functions: Record<string, string> = {};
  const parts = [`#!lua name=${name}`, definitions];
  for (const [script, body, reader] of bodies) {
    const fn = `${script}_${hash}`;
    functions[script] = fn;
    parts.push(
      `local function body_${script}()\n${body}\nend`,
      `redis.register_function('${fn}', function(keys, args)
  ${reader.trim()}
  begin()
  local reply = body_${script}()
  log_changes()
  return reply
end)`,
    );
  }
  return { name, code: parts.join('\n'), functions };
}
