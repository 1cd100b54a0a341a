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
 * `FOO=` in an .env file falls back to the default instead of failing obscurely; a value of spaces
 * is not empty and is refused where a number or boolean is expected.
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) {
    if (v !== undefined && v !== '') {
      raw[k] = v;
    }
  }
  // no implicit conversion: it turned 'false' into true before any transform ran. Numbers and booleans
  // are parsed explicitly by their decorators (env-value.decorators.ts); the rest stay text.
  const env = plainToInstance(Environment, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: false, skipMissingProperties: false });
  const problems = errors.flatMap((e) => {
    // only the first failure per variable: 'abc' is not also "must be at least 1"
    const msg = Object.values(e.constraints ?? {})[0] ?? `${e.property} is not valid`;
    const text = msg.startsWith(e.property) ? msg : `${e.property}: ${msg}`;
    return [e.property in raw ? `${text} (got ${JSON.stringify(raw[e.property])})` : text];
  });
  const h = env;
  const ttlsParsed = [h.HOLD_MIN_TTL_SECONDS, h.HOLD_DEFAULT_TTL_SECONDS, h.HOLD_MAX_TTL_SECONDS].every(
    (v) => typeof v === 'number',
  );
  if (ttlsParsed && h.HOLD_MIN_TTL_SECONDS > h.HOLD_MAX_TTL_SECONDS) {
    problems.push('HOLD_MIN_TTL_SECONDS must not exceed HOLD_MAX_TTL_SECONDS');
  }
  if (
    ttlsParsed &&
    (h.HOLD_DEFAULT_TTL_SECONDS < h.HOLD_MIN_TTL_SECONDS ||
      h.HOLD_DEFAULT_TTL_SECONDS > h.HOLD_MAX_TTL_SECONDS)
  ) {
    problems.push('HOLD_DEFAULT_TTL_SECONDS must lie within [HOLD_MIN_TTL_SECONDS, HOLD_MAX_TTL_SECONDS]');
  }
  const redisTarget = redisTargetProblem(env);
  if (redisTarget) {
    problems.push(redisTarget);
  }
  if (problems.length > 0) {
    throw new ConfigValidationError(problems);
  }
  return new AppConfig(env);
}

/** One Redis or one Cluster: naming both is ambiguous, naming neither would guess (an empty value is unset). */
function redisTargetProblem(env: Environment): string | undefined {
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES) {
    return 'REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for a single Redis or REDIS_CLUSTER_NODES for a Redis Cluster, and leave the other unset or empty';
  }
  if (!env.REDIS_URL && !env.REDIS_CLUSTER_NODES) {
    return 'Neither REDIS_URL nor REDIS_CLUSTER_NODES is set: set REDIS_URL (e.g. redis://127.0.0.1:6379) for a single Redis, or REDIS_CLUSTER_NODES (host:port,host:port,...) for a Redis Cluster';
  }
  return undefined;
}
