/**
 * One error envelope for everything that can go wrong at the HTTP edge, Fastify's own errors included:
 * `{ statusCode, code, message, errors?, requestId }`, with the request id echoed in `x-request-id`.
 */
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let token: string;
let eventId: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.token('alice');
  eventId = await createEvent(api, 1, 2);
});
afterAll(() => api?.close());

const envelope = (statusCode: number, code: string) => ({
  statusCode,
  code,
  message: expect.any(String),
  requestId: expect.any(String),
});

it('echoes the caller’s x-request-id in the header and the body', async () => {
  const r = await api.call('GET', '/v1/events/not-a-uuid/seats', {
    token,
    headers: { 'x-request-id': 'trace-abc-123' },
  });
  expect(r.status).toBe(400);
  expect(r.headers.get('x-request-id')).toBe('trace-abc-123');
  expect(r.body.requestId).toBe('trace-abc-123');
});

it('makes up a request id when none is given, on successes too', async () => {
  const ok = await api.call('GET', `/v1/events/${eventId}/seats`, { token });
  expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  const bad = await api.call('GET', '/v1/events/nope/seats', { token });
  expect(bad.body.requestId).toBe(bad.headers.get('x-request-id'));
  expect(bad.body.requestId).not.toBe(ok.headers.get('x-request-id'));
});

it.each([
  ['an unknown route', 'GET', '/v1/nothing-here', {}, 404, 'NOT_FOUND'],
  ['an unknown method on a known path', 'PATCH', '/v1/holds/x', {}, 404, 'NOT_FOUND'],
  ['no token', 'GET', '/v1/holds/x', { token: undefined }, 401, 'UNAUTHORIZED'],
  ['a token signed with another secret', 'GET', '/v1/holds/x', { token: 'forged' }, 401, 'UNAUTHORIZED'],
  [
    'a form body (the API is JSON only)',
    'POST',
    '/v1/holds/x/extend',
    { raw: 'ttlSeconds=60', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'an unsupported media type',
    'POST',
    '/v1/holds/x/extend',
    { raw: 'ttlSeconds=60', headers: { 'content-type': 'text/plain' } },
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  ['malformed JSON', 'POST', '/v1/holds/x/extend', { raw: '{"ttlSeconds": 6' }, 400, 'MALFORMED_JSON'],
  [
    'an empty JSON body',
    'POST',
    '/v1/holds/x/confirm',
    { raw: '', headers: { 'content-type': 'application/json' } },
    400,
    'MALFORMED_JSON',
  ],
  [
    'a body over the limit',
    'POST',
    '/v1/events',
    { raw: JSON.stringify({ name: 'x'.repeat(70_000) }) },
    413,
    'PAYLOAD_TOO_LARGE',
  ],
])('answers %s in the envelope', async (_name, method, path, opts, status, code) => {
  let auth: string | undefined = token;
  if ('token' in opts) {
    auth = opts.token === 'forged' ? await forged() : undefined;
  }
  const r = await api.call(method, path, { ...opts, token: auth });
  expect(r.status).toBe(status);
  expect(r.body).toEqual(envelope(status, code));
  expect(r.headers.get('content-type')).toMatch(/application\/json/);
});

it('never leaks a JWT or stack in an error', async () => {
  const bad = `${token.slice(0, -4)}AAAA`;
  const r = await api.call('GET', '/v1/holds/x', { token: bad });
  expect(r.status).toBe(401);
  expect(JSON.stringify(r.body)).not.toContain(bad.split('.')[1]);
  expect(JSON.stringify(r.body)).not.toMatch(/at \w+ \(/);
});

it('keeps /health, /metrics and /docs open without a token', async () => {
  expect((await api.call('GET', '/health/live')).status).toBe(200);
  expect((await api.call('GET', '/metrics')).status).toBe(200);
  expect((await api.call('GET', '/docs-json')).status).toBe(200);
});

it('documents every holds and events route in OpenAPI', async () => {
  const doc = (await api.call('GET', '/docs-json')).body as { paths: Record<string, object> };
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining([
      '/v1/events',
      '/v1/events/{eventId}/seats',
      '/v1/events/{eventId}/holds',
      '/v1/holds/{holdId}',
      '/v1/holds/{holdId}/extend',
      '/v1/holds/{holdId}/confirm',
    ]),
  );
  const hold = (doc.paths['/v1/events/{eventId}/holds'] as { post: { responses: Record<string, object> } })
    .post;
  expect(Object.keys(hold.responses)).toEqual(
    expect.arrayContaining(['201', '400', '401', '404', '409', '422', '503']),
  );
  expect(JSON.stringify(hold.responses['409'])).toContain('ErrorEnvelopeView');
});

/** A well-formed HS256 token signed with a secret the service does not know. */
async function forged(): Promise<string> {
  const { SignJWT } = await import('jose');
  return new SignJWT({ roles: ['admin'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('mallory')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('not-the-secret-0123456789abcdef'));
}
