import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppConfig } from './app-config';
import { Environment } from './environment';

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

/**
 * Reads and validates the environment once. Empty strings count as unset so that
 * `FOO=` in an .env file falls back to the default instead of failing obscurely.
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) {
    if (v !== undefined && v !== '') {
      raw[k] = v;
    }
  }
  const env = plainToInstance(Environment, raw, {
    enableImplicitConversion: true,
    exposeDefaultValues: true,
  });
  const errors = validateSync(env, { whitelist: false, skipMissingProperties: false });
  const problems = errors.flatMap((e) =>
    Object.values(e.constraints ?? {}).map((msg) =>
      msg.startsWith(e.property) ? msg : `${e.property}: ${msg} (got ${JSON.stringify(raw[e.property])})`,
    ),
  );
  const h = env;
  if (h.HOLD_MIN_TTL_SECONDS > h.HOLD_MAX_TTL_SECONDS) {
    problems.push('HOLD_MIN_TTL_SECONDS must not exceed HOLD_MAX_TTL_SECONDS');
  }
  if (
    h.HOLD_DEFAULT_TTL_SECONDS < h.HOLD_MIN_TTL_SECONDS ||
    h.HOLD_DEFAULT_TTL_SECONDS > h.HOLD_MAX_TTL_SECONDS
  ) {
    problems.push('HOLD_DEFAULT_TTL_SECONDS must lie within [HOLD_MIN_TTL_SECONDS, HOLD_MAX_TTL_SECONDS]');
  }
  if (problems.length > 0) {
    throw new ConfigValidationError(problems);
  }
  return new AppConfig(env);
}
