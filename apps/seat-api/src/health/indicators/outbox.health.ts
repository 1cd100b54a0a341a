import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { OutboxRelayService } from '../../outbox/outbox-relay.service';

/**
 * The outbox (every seat change on its way to Kafka): depth, age of the oldest record, and whether it
 * drains. Never `down`: records wait safely in Redis and the API keeps serving holds, so a stuck outbox
 * (Kafka down, a relay failing, records older than OUTBOX_STALE_AFTER_MS) is `degraded` (HTTP 200) with
 * the reason.
 */
@Injectable()
export class OutboxHealthIndicator {
  constructor(
    private readonly relay: OutboxRelayService,
    private readonly health: HealthIndicatorService,
  ) {}

  check(key = 'outbox') {
    const { degraded, ...details } = this.relay.health();
    const indicator = this.health.check(key);
    return degraded ? indicator.degraded(details) : indicator.up(details);
  }
}
