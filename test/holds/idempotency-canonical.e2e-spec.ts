/**
 * An Idempotency-Key names one request as the service understands it: path parameters in their canonical
 * form (event ids in lower case, as every layer behind the edge sees them), so a retry that spells the
 * event id in another letter case is the same request and replays the first answer.
 */
import { Api, createEvent, startApi } from '../support/seat-api';

let api: Api;
let eventId: string;
let alice: string;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  eventId = await createEvent(api, 1, 4);
  alice = await api.token('alice');
});
afterAll(() => api?.close());

it('a hold retried with the event id in upper case replays the first 201 for the same key', async () => {
  const headers = { 'idempotency-key': 'hold-spelled-twice' };
  const first = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
    headers,
  });
  expect(first.status).toBe(201);
  const retry = await api.call('POST', `/v1/events/${eventId.toUpperCase()}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
    headers,
  });
  expect([retry.status, retry.body.code]).toEqual([201, undefined]);
  expect(retry.body.holdId).toBe(first.body.holdId);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
});
