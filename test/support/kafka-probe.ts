/** An independent kafkajs consumer that collects every message of a topic (what another team would see). */
import { randomUUID } from 'node:crypto';
import { Consumer, Kafka, KafkaMessage, logLevel } from 'kafkajs';

export class TopicProbe {
  readonly messages: KafkaMessage[] = [];
  private constructor(private readonly consumer: Consumer) {}

  static async start(topic: string, brokers = process.env.KAFKA_BROKERS!): Promise<TopicProbe> {
    const kafka = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin
      .createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true })
      .catch(() => false);
    await admin.disconnect();
    const consumer = kafka.consumer({ groupId: `probe-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const probe = new TopicProbe(consumer);
    await consumer.run({
      eachMessage: ({ message }) => {
        probe.messages.push(message);
        return Promise.resolve();
      },
    });
    return probe;
  }

  values<T = any>(): T[] {
    return this.messages.map((m) => JSON.parse(m.value!.toString()) as T);
  }

  stop(): Promise<void> {
    return this.consumer.disconnect();
  }
}

/**
 * How many messages `topic` holds, from the broker's offsets rather than a probe's reading: a probe may not
 * have read everything yet, so an absence is proven here (0 for a topic never created).
 */
export async function topicMessageCount(
  topic: string,
  brokers = process.env.KAFKA_BROKERS!,
): Promise<number> {
  const admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      return 0;
    }
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((n, p) => n + Number(BigInt(p.high) - BigInt(p.low)), 0);
  } finally {
    await admin.disconnect();
  }
}

export { eventually } from './eventually';
