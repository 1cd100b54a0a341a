/**
 * A best-available hold whose reply outlives REDIS_COMMAND_TIMEOUT_MS (a private redis-server paused
 * with CLIENT PAUSE for 600 ms, the client's timeout 200 ms): Redis picks and holds the seats once it
 * resumes, though the request was answered 503 without them. The service releases that hold by its id,
 * so its seats do not stay held for the whole ttl under an id nobody got.
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
  // the event loaded (its free-seat index built) and the hold functions loaded before the stall
  const warm = await best(await api.token('bob'), 1);
  expect(warm.status).toBe(201);
});
afterAll(() => stage?.close());

const best = (token: string, quantity: number) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { bestAvailable: { quantity } } });
const heldSeats = async () => {
  const seats = Array.from({ length: 10 }, (_, i) => `S-A-${i + 1}`);
  return (await api.app.get(HoldStore).seatConflicts(eventId, seats)).map((c) => c.seatId);
};

it('a best-available hold answered 503 is undone once Redis answers: only the warm-up seat stays held', async () => {
  const before = await heldSeats();
  expect(before).toHaveLength(1);
  await redis.client.call('CLIENT', 'PAUSE', '600', 'ALL');
  const r = await best(alice, 3);
  expect([r.status, r.body.code]).toEqual([503, 'DEPENDENCY_UNAVAILABLE']);
  await redis.client.ping(); // runs after the pause: Redis has made the hold by now
  await eventually(async () => (await heldSeats()).length === 1, 5000, 'the unanswered hold undone');
  const retry = await best(alice, 3);
  expect(retry.status).toBe(201);
  expect(retry.body.seatIds).toHaveLength(3);
});
