/**
 * An idle kafkajs client leaves its event loop alone: after a request is answered, nothing re-checks
 * the connection's pending requests while none is pending (request-queue-timer.ts). Against the real
 * broker, with the client the apps build (createKafka, imported through the library as the apps do).
 *
 * @needs kafka
 */
import type { createKafka as CreateKafka } from '.';

// a module registry of its own: jest's per-file setup applies the fix too, and this file checks that
// importing the library alone does
let createKafka!: typeof CreateKafka;
// the class whose check is counted; kafkajs exports no type for its internals
let RequestQueue!: { prototype: { checkPendingRequests(): void } };
jest.isolateModules(() => {
  /* eslint-disable @typescript-eslint/no-require-imports */
  ({ createKafka } = require('.') as { createKafka: typeof CreateKafka });
  RequestQueue = require('kafkajs/src/network/requestQueue');
  /* eslint-enable @typescript-eslint/no-require-imports */
});

it('checks no pending request while its connection is idle after an answer', async () => {
  const admin = createKafka({
    brokers: process.env.KAFKA_BROKERS!.split(','),
    clientId: 'request-queue-timer',
    requestTimeoutMs: 3000,
  }).admin();
  await admin.connect();
  try {
    await admin.listTopics(); // an answered request: what armed the timer
    const checks = jest.spyOn(RequestQueue.prototype, 'checkPendingRequests');
    await new Promise((r) => setTimeout(r, 1000));
    // unpatched, kafkajs checks about once a millisecond per connection
    expect(checks.mock.calls.length).toBeLessThanOrEqual(2);
    checks.mockRestore();
  } finally {
    await admin.disconnect();
  }
});
