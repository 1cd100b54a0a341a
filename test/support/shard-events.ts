import { randomUUID } from 'node:crypto';
import type { HoldLayout } from '../../apps/seat-api/src/hold-store/hold-keys';

/**
 * Event ids of a test file that each land in a shard of their own (as long as shards are left), so a
 * shard sweep or a shard's outbox in one test sees only that test's event. Random, like real ids.
 */
export function eventIdsInDistinctShards(layout: HoldLayout): () => string {
  const used = new Set<number>();
  return () => {
    for (let i = 0; i < 10_000; i++) {
      const id = randomUUID();
      const shard = layout.shardOf(id);
      if (!used.has(shard) || used.size >= layout.shards) {
        used.add(shard);
        return id;
      }
    }
    return randomUUID();
  };
}
