import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { BaseEnvironment } from './base-environment';

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

/**
 * Reads and validates one app's environment class from `source`. Empty strings count as unset so that
 * `FOO=` in an .env file falls back to the default instead of failing obscurely; a value of spaces is
 * not empty and is refused where a number or boolean is expected. `crossChecks` adds the rules that
 * involve several variables. Every problem is reported at once, each naming its variable.
 */
export function validateEnvironment<E extends BaseEnvironment>(
  type: new () => E,
  source: NodeJS.ProcessEnv,
  crossChecks: (env: E) => string[] = () => [],
): E {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) {
    if (v !== undefined && v !== '') {
      raw[k] = v;
    }
  }
  // no implicit conversion: it turned 'false' into true before any transform ran. Numbers and booleans
  // are parsed explicitly by their decorators (env-value.decorators.ts); the rest stay text.
  const env = plainToInstance(type, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: false, skipMissingProperties: false });
  const problems = errors.flatMap((e) => {
    // only the first failure per variable: 'abc' is not also "must be at least 1"
    const msg = Object.values(e.constraints ?? {})[0] ?? `${e.property} is not valid`;
    const text = msg.startsWith(e.property) ? msg : `${e.property}: ${msg}`;
    return [e.property in raw ? `${text} (got ${JSON.stringify(raw[e.property])})` : text];
  });
  problems.push(...crossChecks(env));
  if (problems.length > 0) {
    throw new ConfigValidationError(problems);
  }
  return env;
}
