import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Admin, Kafka } from 'kafkajs';
import { KAFKA } from './kafka.constants';

/**
 * Asks the cluster for its metadata with a short deadline. A failed check drops the admin client so
 * the next check reconnects from scratch: health recovers by itself when the broker returns.
 */
@Injectable()
export class KafkaHealthIndicator implements OnApplicationShutdown {
  private admin?: Admin;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly health: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'kafka', timeoutMs = 2000) {
    const indicator = this.health.check(key);
    const started = performance.now();
    try {
      const cluster = await withDeadline(this.describe(), timeoutMs);
      return indicator.up({
        brokers: cluster.brokers.length,
        latencyMs: Math.round(performance.now() - started),
      });
    } catch (e) {
      await this.reset();
      return indicator.down({ message: (e as Error).message });
    }
  }

  private async describe() {
    if (!this.admin) {
      this.admin = this.kafka.admin({ retry: { retries: 0 } });
      await this.admin.connect();
    }
    return this.admin.describeCluster();
  }

  private async reset(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.disconnect().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reset();
  }
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Kafka within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
