import type { TrackedLock } from './tracked-lock';
import type { LeaseTracker } from './lease-tracker';
import { hashTag } from './lock-keys';
import type { LockMetrics } from './lock-metrics';
import type { LockScripts } from './lock-scripts';

/**
 * The watchdog's tick: one script per hash tag renews every watched lock of that tag, each all-or-none,
 * and answers one result per lock in the order sent, so result i is lock i's whatever its key count.
 */
export async function renewWatched(
  locks: readonly TrackedLock[],
  deps: { scripts: LockScripts; leases: LeaseTracker; metrics: LockMetrics; leaseMs: number },
): Promise<void> {
  const byTag = new Map<string, TrackedLock[]>();
  for (const l of locks) {
    const tag = hashTag(l.keys[0]);
    const group = byTag.get(tag);
    if (group) {
      group.push(l);
    } else {
      byTag.set(tag, [l]);
    }
  }
  await Promise.all([...byTag.values()].map((group) => renewGroup(group, deps)));
}

async function renewGroup(
  group: TrackedLock[],
  { scripts, leases, metrics, leaseMs }: Parameters<typeof renewWatched>[1],
): Promise<void> {
  const sentAt = performance.now();
  let results: number[];
  try {
    results = await scripts.renew(group, leaseMs);
    if (results.length !== group.length) {
      throw new Error(`renewal answered ${results.length} results for ${group.length} locks`);
    }
  } catch (e) {
    // Not an answer about ownership: keep each lock until its known lease runs out, then call it lost.
    // A renewal that timed out may still run in Redis; it only ever extends keys that are still ours.
    metrics.renewals.inc({ result: 'error' }, group.length);
    for (const l of group) {
      if (performance.now() >= l.validUntil) {
        leases.lost(l, `renewal failed past the lease: ${(e as Error).message}`);
      }
    }
    return;
  }
  group.forEach((l, i) => {
    if (l.released || l.lostError) {
      return; // released or declared lost while the batch was in flight: that decision stands
    }
    if (results[i] === 1) {
      metrics.renewals.inc({ result: 'renewed' });
      leases.renewed(l, sentAt + leaseMs);
    } else {
      metrics.renewals.inc({ result: 'refused' });
      leases.lost(l, 'renewal refused: the lock is no longer ours');
    }
  });
}
