import { Injectable } from '@nestjs/common';

/**
 * Whether the instance is shutting down. Set first thing on SIGTERM (bootstrap/graceful-shutdown.ts), so
 * readiness answers 503 while the app still serves: load balancers stop sending new requests before
 * connections close, instead of meeting refused connections.
 */
@Injectable()
export class ShutdownState {
  private drainingSince?: number;

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  beginDrain(): void {
    this.drainingSince ??= Date.now();
  }
}
