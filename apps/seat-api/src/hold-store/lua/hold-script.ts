import { PRELUDE } from './prelude.lua';

/**
 * What the store registers for each hold script (`${PRELUDE}` + body): the body becomes a function, so
 * whichever `return` it leaves by, the changes it made are recorded in the seat-map change log before the
 * reply goes out (prelude log_changes(), change-log.lua.ts). One script, one atomic step, no extra round
 * trip. Read-only scripts are wrapped too: they record nothing.
 */
export function holdScript(script: string): string {
  if (!script.startsWith(PRELUDE)) {
    throw new Error('a hold script starts with PRELUDE');
  }
  return `${PRELUDE}
local function script_body()
${script.slice(PRELUDE.length)}
end
local reply = script_body()
log_changes()
return reply
`;
}
