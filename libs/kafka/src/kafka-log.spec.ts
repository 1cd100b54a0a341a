/**
 * kafkajs's own log lines go through Nest's logger (whatever the app installed: pino in the apps) at a
 * sane level, and a broker that refuses does not flood it: identical lines are collapsed (kafkajs
 * alone writes about 100 error lines a minute while Kafka is down). Real kafkajs against a port where nothing listens.
 */
import { Logger, LoggerService } from '@nestjs/common';
import { freePort } from '@test/support/private-redis';
import { createKafka } from './create-kafka';

interface Line {
  level: string;
  message: unknown;
  context?: unknown;
}

/** Records what reaches the app's logger (as app.useLogger would install it). */
function installSink(): Line[] {
  const lines: Line[] = [];
  const record =
    (level: string) =>
    (message: unknown, ...rest: unknown[]) =>
      lines.push({ level, message, context: rest[rest.length - 1] });
  const sink: LoggerService = {
    log: record('log'),
    error: record('error'),
    warn: record('warn'),
    debug: record('debug'),
    verbose: record('verbose'),
    fatal: record('fatal'),
  };
  Logger.overrideLogger(sink);
  return lines;
}

// kafkajs waits between its retries on timers: fake ones, moved on by `settled`, so a whole retry
// schedule takes no real time; the refused connections themselves are real
beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
afterEach(() => {
  jest.useRealTimers();
  Logger.overrideLogger(new Logger());
});

/**
 * Waits for `promise`, moving the fake clock on a little at a time while it is pending. Between two steps
 * the event loop turns once, so a refused connection is reported before the clock reaches kafkajs's
 * connection timeout.
 */
async function settled<T>(promise: Promise<T>): Promise<T> {
  let pending = true;
  promise.then(
    () => (pending = false),
    () => (pending = false),
  );
  while (pending) {
    await new Promise((r) => setImmediate(r));
    await jest.advanceTimersByTimeAsync(20);
  }
  return promise;
}

const fromKafkajs = (lines: Line[]) => lines.filter((l) => String(l.context).startsWith('kafkajs'));
const text = (l: Line) => (typeof l.message === 'string' ? l.message : JSON.stringify(l.message));

it('keeps kafkajs lines few, and at warn, while the broker refuses every connection', async () => {
  const lines = installSink();
  const kafka = createKafka({
    brokers: [`127.0.0.1:${await freePort()}`],
    clientId: 'log-test',
    requestTimeoutMs: 1000,
  });
  // three producers failing to connect, each through its whole retry schedule: kafkajs itself writes about
  // a dozen lines per attempt (a connection error and "failed to connect to seed broker" per retry)
  for (let attempt = 0; attempt < 3; attempt++) {
    await expect(settled(kafka.producer().connect())).rejects.toThrow(/ECONNREFUSED/);
  }
  const logged = fromKafkajs(lines);
  expect(logged.length).toBeGreaterThan(0); // the lines do reach the app's logger
  expect(logged.length).toBeLessThanOrEqual(4); // one per distinct message, not one per retry
  expect(logged.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
  expect(logged.map(text).join('\n')).toMatch(/ECONNREFUSED/);
});

it('says how often a collapsed line repeated, once its window has passed', async () => {
  const lines = installSink();
  const kafka = createKafka({
    brokers: [`127.0.0.1:${await freePort()}`],
    clientId: 'log-test',
    requestTimeoutMs: 1000,
    logRepeatWindowMs: 100,
  });
  // each attempt spans well over 100 ms of retries, so later lines fall in a new window and report
  // how many were held back in the previous one
  for (let attempt = 0; attempt < 2; attempt++) {
    await expect(settled(kafka.producer().connect())).rejects.toThrow(/ECONNREFUSED/);
  }
  const repeats = fromKafkajs(lines).filter((l) => /repeated \d+ times?/.test(text(l)));
  expect(repeats.length).toBeGreaterThan(0);
});
