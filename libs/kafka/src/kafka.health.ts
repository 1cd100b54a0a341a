import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Admin, Kafka } from 'kafkajs';
import { KAFKA } from './kafka.constants';

export interface KafkaCheckOptions {
  /** Deadline of the metadata request (default 2000 ms). */
  timeoutMs?: number;
  /**
   * Whether the caller cannot work without Kafka (default true): then an unreachable broker is `down`
   * (HTTP 503). An app that keeps serving without Kafka (the seat API: expiry events wait in its
   * outbox) passes false and gets `degraded` (HTTP 200), so a load balancer keeps it in rotation.
   */
  required?: boolean;
}

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

  async isHealthy(key = 'kafka', { timeoutMs = 2000, required = true }: KafkaCheckOptions = {}) {
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
      const message = (e as Error).message;
      return required ? indicator.down({ message }) : indicator.degraded({ message });
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
