import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '@app/config';
import { settleWithin } from '../common/settle-within';
import { OutboxRelayService } from './outbox-relay.service';

/** Name of the relay's interval in the SchedulerRegistry. */
export const RELAY_INTERVAL = 'outbox-relay';

/**
 * Runs the relay every OUTBOX_RELAY_INTERVAL_MS on every instance (when SWEEPER_ENABLED), and at
 * shutdown lets the pass in flight finish (settling what Kafka already took) before any connection
 * closes (onApplicationShutdown would be too late for Redis).
 */
@Injectable()
export class OutboxRelayJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly relay: OutboxRelayService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.expiry.sweeperEnabled) {
      return;
    }
    const timer = setInterval(() => void this.relay.tick(), this.config.expiry.relayIntervalMs);
    this.scheduler.addInterval(RELAY_INTERVAL, timer);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('interval', RELAY_INTERVAL)) {
      this.scheduler.deleteInterval(RELAY_INTERVAL);
    }
    this.relay.stop(); // passes run back to back while records flow: the one in flight is the last
    await settleWithin(this.relay.inFlight, 10_000);
  }
}
