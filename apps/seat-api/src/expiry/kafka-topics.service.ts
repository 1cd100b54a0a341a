import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import { AppConfig } from '@app/config';
import { ensureTopics, KAFKA } from '@app/kafka';

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

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: AppConfig,
  ) {}

  get topicsReady(): boolean {
    return this.ready;
  }

  onApplicationBootstrap(): void {
    void this.ensure();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
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
      this.timer = setTimeout(() => void this.ensure(), 5000);
      this.timer.unref();
    }
  }
}
