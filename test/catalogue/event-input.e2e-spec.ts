/**
 * What POST /v1/events takes: an event that starts in the past is refused naming `startsAt`.
 */
import { Api, startApi } from '../support/seat-api';

let api: Api;
let admin: string;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  admin = await api.token('admin-1', ['admin']);
});
afterAll(() => api?.close());

const layout = (startsAt: string) => ({
  name: 'Yesterday',
  startsAt,
  sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 3 }] }],
});

it('refuses an event whose startsAt is in the past with 400 naming startsAt', async () => {
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: layout(new Date(Date.now() - 60_000).toISOString()),
  });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({
    code: 'VALIDATION_FAILED',
    errors: [{ field: 'startsAt', message: expect.stringContaining('future') }],
  });
  const ahead = await api.call('POST', '/v1/events', {
    token: admin,
    body: layout(new Date(Date.now() + 3_600_000).toISOString()),
  });
  expect(ahead.status).toBe(201);
});
