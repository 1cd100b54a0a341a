import type { SeatApiEnvironment } from './environment';

/** The seat API's rules that involve several variables (each variable alone is checked by its class). */
export function seatApiCrossChecks(env: SeatApiEnvironment): string[] {
  const problems: string[] = [];
  const ttls = [env.HOLD_MIN_TTL_SECONDS, env.HOLD_DEFAULT_TTL_SECONDS, env.HOLD_MAX_TTL_SECONDS];
  if (ttls.every((v) => typeof v === 'number')) {
    if (env.HOLD_MIN_TTL_SECONDS > env.HOLD_MAX_TTL_SECONDS) {
      problems.push('HOLD_MIN_TTL_SECONDS must not exceed HOLD_MAX_TTL_SECONDS');
    }
    if (
      env.HOLD_DEFAULT_TTL_SECONDS < env.HOLD_MIN_TTL_SECONDS ||
      env.HOLD_DEFAULT_TTL_SECONDS > env.HOLD_MAX_TTL_SECONDS
    ) {
      problems.push('HOLD_DEFAULT_TTL_SECONDS must lie within [HOLD_MIN_TTL_SECONDS, HOLD_MAX_TTL_SECONDS]');
    }
  }
  if (env.REDIS_WAIT_REPLICAS > 0 && env.REDIS_WAIT_TIMEOUT_MS >= env.REDIS_COMMAND_TIMEOUT_MS) {
    // the client would give up on the WAIT (and on every command queued behind it) before Redis answers
    problems.push(
      'REDIS_WAIT_TIMEOUT_MS must be below REDIS_COMMAND_TIMEOUT_MS when REDIS_WAIT_REPLICAS is above 0',
    );
  }
  const redisTarget = redisTargetProblem(env);
  if (redisTarget) {
    problems.push(redisTarget);
  }
  return problems;
}

/** One Redis or one Cluster: naming both is ambiguous, naming neither would guess (an empty value is unset). */
function redisTargetProblem(env: SeatApiEnvironment): string | undefined {
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES) {
    return 'REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for a single Redis or REDIS_CLUSTER_NODES for a Redis Cluster, and leave the other unset or empty';
  }
  if (!env.REDIS_URL && !env.REDIS_CLUSTER_NODES) {
    return 'Neither REDIS_URL nor REDIS_CLUSTER_NODES is set: set REDIS_URL (e.g. redis://127.0.0.1:6379) for a single Redis, or REDIS_CLUSTER_NODES (host:port,host:port,...) for a Redis Cluster';
  }
  return undefined;
}
