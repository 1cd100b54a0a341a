import { ICustomPartitioner, Partitioners } from 'kafkajs';

/** Keys remembered at most, then all forgotten at once: about the shows with expiries in flight. */
const MAX_KEYS = 10_000;

/**
 * kafkajs's DefaultPartitioner (the Java client's murmur2 of the key, modulo the partition count) with its
 * answer remembered per key: every record of a show (any seat change) carries the show's id as its key,
 * so a batch of 1,000 records names a few shows, and hashing each record's key again is work on the
 * relay's hot path that answers what is already known. For a keyed record the default's answer depends on the key and the
 * partition count alone, so the cache (dropped when the count changes) gives the same partition: per-show
 * order and the placement of records already on the topic are unchanged. Records without a key, or with a
 * partition of their own, go to the default as they are.
 */
export const keyedPartitioner: ICustomPartitioner = () => {
  const partition = Partitioners.DefaultPartitioner();
  const byKey = new Map<string, number>();
  let partitions = -1;
  return (args) => {
    const { key, partition: fixed } = args.message;
    if (typeof key !== 'string' || (fixed !== undefined && fixed !== null)) {
      return partition(args);
    }
    if (args.partitionMetadata.length !== partitions || byKey.size >= MAX_KEYS) {
      byKey.clear();
      partitions = args.partitionMetadata.length;
    }
    let p = byKey.get(key);
    if (p === undefined) {
      p = partition(args);
      byKey.set(key, p);
    }
    return p;
  };
};
