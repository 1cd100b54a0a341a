import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ShutdownState } from '../health/shutdown/shutdown-state';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Replaces Nest's enableShutdownHooks for the seat API. Nest closes at once on SIGTERM: connections close
 * while a load balancer still routes requests here. Instead, on SIGTERM (or SIGINT):
 * 1. readiness (/health) answers 503 at once, while the app keeps serving everything else;
 * 2. after `drainMs` (SHUTDOWN_DRAIN_MS: 5 s in production, 0 elsewhere) the app closes through Nest's
 *    usual hooks (in-flight requests finish, clients and pools close);
 * 3. the process ends by the same signal, as it would with Nest's handler.
 * A second signal during the drain skips the rest of it (an operator at a terminal who does not wait).
 * The listeners go when the app closes, so apps created and closed in one process (tests) leave none.
 */
export function enableGracefulShutdown(app: NestFastifyApplication, drainMs: number): void {
  const logger = new Logger('Shutdown');
  const state = app.get(ShutdownState);
  let endDrain: (() => void) | undefined;
  let started = false;

  const onSignal = (signal: NodeJS.Signals) => {
    if (started) {
      endDrain?.();
      return;
    }
    started = true;
    state.beginDrain();
    logger.log({ msg: 'shutting down: readiness answers 503 while load balancers drain', signal, drainMs });
    const drained = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, drainMs);
      endDrain = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    void drained
      .then(() => {
        endDrain = undefined;
        return app.close();
      })
      .then(
        () => process.kill(process.pid, signal), // our listeners are gone: the default action ends the process
        (e: unknown) => {
          logger.error({ msg: 'error during shutdown', err: e });
          process.exit(1);
        },
      );
  };

  SIGNALS.forEach((s) => process.on(s, onSignal));
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', (_instance, done) => {
      SIGNALS.forEach((s) => process.off(s, onSignal));
      done();
    });
}
