/**
 * Nothing the seat API does enters an AsyncLocalStorage: on Node 20 one in use puts init/before/after
 * hooks on every promise of the process, which cost the service about 30 % of its CPU per hold in
 * bench:http. Request ids reach the log lines that need them as arguments, and the lock
 * is known in the synchronous start of a locked method (lock-context.ts); a library or a change that
 * brings an AsyncLocalStorage back onto a request path fails here, naming where it was entered.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Api, createEvent, startApi } from '@test/support/seat-api';

const entered: string[] = [];
const originals = {
  // the prototype's own functions, put back after the file: called with the instance as `this` below
  // eslint-disable-next-line @typescript-eslint/unbound-method
  run: AsyncLocalStorage.prototype.run,
  // eslint-disable-next-line @typescript-eslint/unbound-method
  enterWith: AsyncLocalStorage.prototype.enterWith,
};

/** Records where an AsyncLocalStorage was entered, unless by jest itself (it runs each test in one). */
function record(what: string): void {
  const stack = new Error(what).stack ?? what;
  const caller = stack.split('\n').find((line, i) => i > 0 && !line.includes(__filename)) ?? '';
  if (!/node_modules\/jest-/.test(caller)) {
    entered.push(stack);
  }
}

beforeAll(() => {
  // patched on the prototype every AsyncLocalStorage of the process shares (node:async_hooks is one module)
  AsyncLocalStorage.prototype.run = function (this: AsyncLocalStorage<unknown>, ...args: unknown[]) {
    record('AsyncLocalStorage.run');
    return (originals.run as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof originals.run;
  AsyncLocalStorage.prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown) {
    record('AsyncLocalStorage.enterWith');
    return originals.enterWith.call(this, store);
  };
});
afterAll(() => {
  AsyncLocalStorage.prototype.run = originals.run;
  AsyncLocalStorage.prototype.enterWith = originals.enterWith;
});

let api: Api;
afterAll(() => api?.close());

it('holds, extends, confirms, releases and reads the map without entering an AsyncLocalStorage', async () => {
  api = await startApi();
  const eventId = await createEvent(api, 1, 10);
  const alice = await api.token('alice');
  const hold = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1', 'S-A-2'] },
    headers: { 'idempotency-key': 'als-1' },
  });
  expect(hold.status).toBe(201);
  const holdId = hold.body.holdId as string;
  expect(
    (await api.call('POST', `/v1/holds/${holdId}/extend`, { token: alice, body: { ttlSeconds: 120 } }))
      .status,
  ).toBe(200);
  const second = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-3'] },
  });
  expect((await api.call('DELETE', `/v1/holds/${second.body.holdId}`, { token: alice })).status).toBe(204);
  expect(
    (await api.call('POST', `/v1/holds/${holdId}/confirm`, { token: alice, body: { orderId: 'als-order' } }))
      .status,
  ).toBe(201);
  // a refusal, a seat-map read and an unknown route take the other paths (error filter, snapshots)
  expect(
    (await api.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds: ['S-A-1'] } }))
      .status,
  ).toBe(409);
  expect((await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice })).status).toBe(200);
  expect((await api.call('GET', '/v1/nowhere', { token: alice })).status).toBe(404);
  expect(entered).toEqual([]);
});
