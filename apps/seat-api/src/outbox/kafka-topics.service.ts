import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import { AppConfig } from '@app/config';
import { ensureTopics, KAFKA } from '@app/kafka';

/** How long shutdown waits for a topic creation in flight (it waits for the new topics' leaders). */
const SHUTDOWN_WAIT_MS = 10_000;

/**
 * Creates `seat.expired` (and its dead-letter topic) and `seat.status` when missing. Never blocks boot: while Kafka is
 * down it retries in the background, and the relay simply keeps records in the outbox meanwhile.
 */
@Injectable()
export class KafkaTopicsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('KafkaTopics');
  private timer?: NodeJS.Timeout;
  private ready = false;
  /** Set on shutdown: an attempt still in flight must not schedule another one after the app closed. */
  private stopped = false;
  /** The attempt in flight: shutdown waits for it, so no Kafka admin call outlives the app. */
  private attempt?: Promise<void>;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: AppConfig,
  ) {}

  get topicsReady(): boolean {
    return this.ready;
  }

  onApplicationBootstrap(): void {
    this.attempt = this.ensure();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // a createTopics still waiting for its leaders would go on retrying after the app closed
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([this.attempt, new Promise<void>((r) => (bound = setTimeout(r, SHUTDOWN_WAIT_MS)))]);
    clearTimeout(bound);
  }

  private async ensure(): Promise<void> {
    const { seatExpiredTopic, deadLetterTopic, seatStatusTopic, partitions } = this.config.kafka;
    try {
      const topics = [seatExpiredTopic, deadLetterTopic, seatStatusTopic];
      const created = await ensureTopics(this.kafka, topics, partitions);
      if (created.length > 0) {
        this.logger.log(`created topic(s) ${created.join(', ')} with ${partitions} partitions`);
      }
      this.ready = true;
    } catch (e) {
      if (this.stopped) {
        return;
      }
      this.logger.warn(`Kafka topics not ensured yet (${(e as Error).message}); retrying in 5 s`);
      this.timer = setTimeout(() => {
        this.attempt = this.ensure();
      }, 5000);
      this.timer.unref();
    }
  }
}
