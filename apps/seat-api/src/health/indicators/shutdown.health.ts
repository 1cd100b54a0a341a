import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { ShutdownState } from '../shutdown/shutdown-state';

/** `down` (readiness 503) from the moment a shutdown began: the instance is draining, not broken. */
@Injectable()
export class ShutdownHealthIndicator {
  constructor(
    private readonly shutdown: ShutdownState,
    private readonly health: HealthIndicatorService,
  ) {}

  check(key = 'shutdown') {
    const indicator = this.health.check(key);
    return this.shutdown.draining
      ? indicator.down({ message: 'shutting down: draining before the server closes' })
      : indicator.up();
  }
}
