/**
 * Redis stalls longer than REDIS_COMMAND_TIMEOUT_MS (a private redis-server paused with CLIENT PAUSE
 * for 600 ms, the client's timeout 200 ms): the client gave up on the reply, yet Redis runs the command
 * once it resumes. The request is answered 503 DEPENDENCY_UNAVAILABLE with Retry-After, and nothing it
 * started may outlive it: no hold under an id nobody got, keeping the seats from everyone (its own
 * user's retry included) for the whole ttl.
 */
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { eventually } from '../support/eventually';
import { PrivateRedis } from '../support/private-redis';
import { Api } from '../support/seat-api';
import { StallableRedisStage, startStallableRedisStage } from '../support/stallable-redis-stage';

jest.setTimeout(60_000);

let stage: StallableRedisStage;
let redis: PrivateRedis;
let api: Api;
let eventId: string;
let alice: string;

beforeAll(async () => {
  stage = await startStallableRedisStage();
  ({ redis, api, eventId, alice } = stage);
  // the event's seats cached and the hold functions loaded: the hold below needs nothing but its
  // lock and its script from Redis
  const warm = await hold(await api.token('bob'), ['S-A-10']);
  expect(warm.status).toBe(201);
});
afterAll(() => stage?.close());

const hold = (token: string, seatIds: string[], headers: Record<string, string> = {}) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds }, headers });
const taken = async (seatId: string) =>
  (await api.app.get(HoldStore).seatConflicts(eventId, [seatId])).length > 0;

/** Redis holds every client's commands for `ms`, then runs them (replies come after the client gave up). */
const stall = (ms: number) => redis.client.call('CLIENT', 'PAUSE', String(ms), 'ALL');
/** Resolves once Redis answers again (a command sent now runs after the pause). */
const resumed = () => redis.client.ping();

it('a hold whose reply outlives the command timeout: 503 with Retry-After, then undone (seat free, retry 201)', async () => {
  await stall(600);
  const r = await hold(alice, ['S-A-1']);
  expect([r.status, r.body.code]).toEqual([503, 'DEPENDENCY_UNAVAILABLE']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  await resumed();
  // the hold Redis made once it resumed is gone again, long before its 300 s ttl
  await eventually(async () => !(await taken('S-A-1')), 5000, 'the unanswered hold undone');
  const retry = await hold(alice, ['S-A-1']);
  expect([retry.status, retry.body.code]).toEqual([201, undefined]);
});

it('the same retry sent the moment Redis answers again gets 201, not 409 on its own lost hold', async () => {
  await stall(600);
  const r = await hold(alice, ['S-A-2', 'S-A-3']);
  expect([r.status, r.body.code]).toEqual([503, 'DEPENDENCY_UNAVAILABLE']);
  await resumed();
  const retry = await hold(alice, ['S-A-3', 'S-A-2']);
  expect([retry.status, retry.body.code]).toEqual([201, undefined]);
  expect(retry.body.seatIds).toEqual(['S-A-2', 'S-A-3']);
});

it('a 503 frees its Idempotency-Key at once: the retry with that key gets 201, not 409 IDEMPOTENCY_IN_PROGRESS', async () => {
  const headers = { 'idempotency-key': 'stalled-claim' };
  await stall(600);
  const r = await hold(alice, ['S-A-4'], headers);
  expect([r.status, r.body.code]).toEqual([503, 'DEPENDENCY_UNAVAILABLE']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  await resumed();
  const retry = await hold(alice, ['S-A-4'], headers);
  expect([retry.status, retry.body.code]).toEqual([201, undefined]);
  const replay = await hold(alice, ['S-A-4'], headers);
  expect([replay.status, replay.body.holdId]).toEqual([201, retry.body.holdId]);
});
