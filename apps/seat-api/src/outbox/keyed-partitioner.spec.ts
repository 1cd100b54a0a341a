import { randomUUID } from 'node:crypto';
import { Partitioners, PartitionMetadata } from 'kafkajs';
import { keyedPartitioner } from './keyed-partitioner';

const metadata = (n: number, leaderless: number[] = []): PartitionMetadata[] =>
  Array.from({ length: n }, (_, partitionId) => ({
    partitionId,
    leader: leaderless.includes(partitionId) ? -1 : 1,
    replicas: [1],
    isr: [1],
    offlineReplicas: [],
    partitionErrorCode: 0,
  }));

describe('keyedPartitioner', () => {
  it("gives every keyed record the default partitioner's partition, also after the partition count changes", () => {
    const cached = keyedPartitioner();
    const reference = Partitioners.DefaultPartitioner();
    const keys = Array.from({ length: 100 }, () => randomUUID());
    for (const n of [6, 6, 12, 1, 6]) {
      // twice each: the second round answers from the cache; one partition without a leader changes nothing
      for (const partitionMetadata of [metadata(n), metadata(n, [0])]) {
        for (const key of keys) {
          const args = { topic: 't', partitionMetadata, message: { key, value: 'v' } };
          expect(cached(args)).toBe(reference(args));
        }
      }
    }
  });

  it('leaves a record with its own partition, or without a key, to the default', () => {
    const cached = keyedPartitioner();
    const partitionMetadata = metadata(6, [1, 2, 3, 4, 5]);
    expect(cached({ topic: 't', partitionMetadata, message: { key: 'k', value: 'v', partition: 4 } })).toBe(
      4,
    );
    // no key: round robin over the partitions that have a leader (only 0 here)
    expect(cached({ topic: 't', partitionMetadata, message: { value: 'v' } })).toBe(0);
  });

  it('forgets its keys beyond the bound and still answers the same', () => {
    const cached = keyedPartitioner();
    const reference = Partitioners.DefaultPartitioner();
    const partitionMetadata = metadata(6);
    let differing = 0;
    // 11,000 keys, twice over: the cache fills, is dropped, fills again
    for (let i = 0; i < 22_000; i++) {
      const args = { topic: 't', partitionMetadata, message: { key: `show-${i % 11_000}`, value: 'v' } };
      differing += cached(args) === reference(args) ? 0 : 1;
    }
    expect(differing).toBe(0);
  });
});
