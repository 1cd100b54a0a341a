import { Kafka } from 'kafkajs';

/** Creates the topics that are missing (the broker does not auto-create). Returns the ones it created. */
export async function ensureTopics(kafka: Kafka, topics: string[], numPartitions: number): Promise<string[]> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      try {
        await admin.createTopics({
          topics: missing.map((topic) => ({ topic, numPartitions, replicationFactor: -1 })),
          waitForLeaders: true,
        });
      } catch (e) {
        // another instance created them at the same moment: fine
        if (!/already exists/i.test((e as Error).message)) {
          throw e;
        }
      }
    }
    return missing;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * ensureTopics, tried again every 2 s for about a minute: a consumer app that starts with the broker (or
 * before it) waits for it rather than failing its boot, since subscribing to a missing topic fails.
 */
export async function ensureTopicsPatiently(
  kafka: Kafka,
  topics: string[],
  partitions: number,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureTopics(kafka, topics, partitions);
      return;
    } catch (e) {
      if (attempt >= 30) {
        throw e;
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}
