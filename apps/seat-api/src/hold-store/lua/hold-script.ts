import { createHash } from 'node:crypto';
import { PRELUDE, PRELUDE_DEFINITIONS } from './prelude.lua';

/** The body of a hold script: what follows PRELUDE. */
function bodyOf(script: string): string {
  if (!script.startsWith(PRELUDE)) {
    throw new Error('a hold script starts with PRELUDE');
  }
  return script.slice(PRELUDE.length);
}

/**
 * A hold script as one EVAL (`${PRELUDE}` + body): the body becomes a function, so whichever `return` it
 * leaves by, the changes it made are recorded in the seat-map change log before the reply goes out
 * (prelude log_changes(), change-log.lua.ts). One script, one atomic step, no extra round trip. Read-only
 * scripts are wrapped too: they record nothing. For tests and rare scripts: the store's own run as
 * functions of the library below.
 */
export function holdScript(script: string): string {
  return `${PRELUDE}
local function script_body()
${bodyOf(script)}
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
 * EVALSHA: an EVAL script runs its whole text on every call, and the prelude defines some 40 functions.
 * Creating a closure costs about half a microsecond in Redis's Lua (more the more local variables are
 * open), so every hold script paid ~25-30 µs of Redis CPU before doing anything (measured: a script that
 * is only the prelude). A library runs its definitions once, when loaded; each call only sets its keys,
 * arguments and time (begin()) and runs its body, then records its seat changes (log_changes()).
 *
 * Each call is still atomic and single-slot, exactly like the script it replaces. Per-call state lives in
 * library locals that begin() resets, and Redis runs one function at a time. The name carries a hash of
 * the code, so during a rolling deploy each version calls its own functions.
 */
export function holdLibrary(scripts: Record<string, string>): HoldLibrary {
  const bodies = Object.entries(scripts).map(([name, script]) => [name, bodyOf(script)] as const);
  const hash = createHash('sha1')
    .update(PRELUDE_DEFINITIONS)
    .update(JSON.stringify(bodies))
    .digest('hex')
    .slice(0, 12);
  const name = `seathold_${hash}`;
  const functions: Record<string, string> = {};
  const parts = [
    `#!lua name=${name}`,
    '-- per call: set by each function wrapper before begin()',
    'local KEYS, ARGV',
  ];
  parts.push(PRELUDE_DEFINITIONS);
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
