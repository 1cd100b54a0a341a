import { randomUUID } from 'node:crypto';
import { TrackedLock, TrackedLockHost } from './tracked-lock';
import { LeaseTracker } from './lease-tracker';
import { lockCallError, outcomeUnknown } from './lock-call-error';
import { LockMetrics } from './lock-metrics';
import { LockScripts } from './lock-scripts';

/**
 * The acquire of a pipelined section (RunOptions.pipelined), sent without waiting for its answer.
 *
 * Why: a seat lock's section is acquire, one write, release. Waiting for the grant before writing costs a
 * round trip, and holds the lock across it: under a flash sale every other request for those seats finds
 * it busy for that long. Sent in one tick, the acquire, the section's write and its release
 * leave in one batch (auto-pipelining) and Redis runs them in that order, so the lock is held only while
 * the write runs. The write cannot know the grant, so its store checks the lock's `ownership` in its own
 * script: if the acquire did not take the lock, the write is refused there and changes nothing, and the
 * section runs again the usual way (distributed-lock.service.ts).
 */
export interface PipelinedAcquireDeps {
  readonly host: TrackedLockHost;
  readonly scripts: LockScripts;
  readonly leases: LeaseTracker;
  readonly metrics: LockMetrics;
  /** Counts the acquire as on the wire (shutdown waits for it) until `settled` is called. */
  readonly inFlight: { begin(): void; settled(): void };
}

/**
 * Sends the acquire now and returns its lock at once, with `grant` settling when Redis answers. A grant
 * is tracked (held here, released at shutdown) unless the holder has let go by then (a release, or a write
 * whose script let go: there is nothing left to track).
 */
export function sendPipelinedAcquire(
  deps: PipelinedAcquireDeps,
  keys: string[],
  redisKeys: string[],
  fenceKey: string,
  leaseMs: number,
  marginMs: number,
): TrackedLock {
  const { scripts, leases, metrics } = deps;
  const owner = randomUUID();
  const sentAt = performance.now();
  const lock = new TrackedLock(
    deps.host,
    keys,
    redisKeys,
    owner,
    0,
    sentAt,
    leaseMs,
    false,
    sentAt,
    marginMs,
  );
  deps.inFlight.begin();
  lock.grant = scripts
    .acquire(fenceKey, redisKeys, owner, leaseMs)
    .then(
      (reply) => {
        if (reply[0] !== 1) {
          metrics.contention.inc();
          return false;
        }
        lock.fencingToken = Number(reply[1]);
        lock.acquiredAt = performance.now();
        metrics.acquisitions.inc({ result: 'acquired' });
        metrics.waitSeconds.observe((lock.acquiredAt - sentAt) / 1000);
        if (!lock.released) {
          leases.track(lock);
        }
        return true;
      },
      (e: unknown) => {
        if (outcomeUnknown(e)) {
          // as acquire() does: it may still run in Redis; undo it by owner token right behind it
          metrics.acquisitions.inc({ result: 'outcome_unknown' });
          void scripts.release(redisKeys, owner).catch(() => 0);
        } else {
          metrics.acquisitions.inc({ result: 'error' });
        }
        throw lockCallError('acquire', keys, e);
      },
    )
    .finally(() => deps.inFlight.settled());
  // read by the section's runner and by release(); never an unhandled rejection meanwhile
  lock.grant.catch(() => undefined);
  return lock;
}
