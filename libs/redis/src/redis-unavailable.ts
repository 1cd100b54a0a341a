/**
 * Whether an error from ioredis means "Redis could not run this command now; the same call may succeed
 * shortly", so callers answer 503 with Retry-After instead of a 500. Two kinds:
 *
 * - The client failed fast (no offline queue, bounded timeout, one retry: see create-redis-client.ts).
 *   ioredis gives these no class to test with instanceof, only their messages.
 * - A Redis Cluster in the middle of a failover or resharding refused the command without running it:
 *   MOVED / ASK (a redirection ioredis did not follow: it follows one for a pipelined command only when every
 *   command of the batch got the same answer), TRYAGAIN, CLUSTERDOWN, MASTERDOWN, LOADING, or READONLY (a
 *   write that reached a node just demoted to replica). Redis sends these before executing anything, so the
 *   change was not made and a retry is safe.
 */
const CLIENT_GAVE_UP =
  /Stream isn't writeable|Connection is closed|Command timed out|ECONNREFUSED|enableOfflineQueue|max retries per request/i;
const NOT_RUN_BY_CLUSTER = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|LOADING|READONLY)\b/;

export function isRedisUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) {
    return false;
  }
  return CLIENT_GAVE_UP.test(e.message) || (e.name === 'ReplyError' && NOT_RUN_BY_CLUSTER.test(e.message));
}
