/**
 * One error envelope for everything that can go wrong at the HTTP edge, Fastify's own errors included:
 * `{ statusCode, code, message, errors?, requestId }`, with the request id echoed in `x-request-id`.
 */
import { rawRequest } from '@test/support/raw-http';
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

/** A request head for the raw-socket cases: `lines` are its header lines after Host. */
const head = (requestLine: string, ...lines: string[]) =>
  [requestLine, 'Host: 127.0.0.1', ...lines, '', ''].join('\r\n');

// What Node's HTTP parser refuses never reaches Fastify's routing or Nest: these are sent byte for byte
// over a socket, since no HTTP client sends them.
it.each<[string, string | Buffer, { end?: boolean }, number]>([
  [
    'a chunk size that is not hex',
    head('POST /v1/holds/x/extend HTTP/1.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked') +
      'zz\r\n{}\r\n0\r\n\r\n',
    {},
    400,
  ],
  [
    'Content-Length together with Transfer-Encoding',
    head(
      'POST /v1/holds/x/extend HTTP/1.1',
      'Content-Type: application/json',
      'Content-Length: 4',
      'Transfer-Encoding: chunked',
    ) + '2\r\n{}\r\n0\r\n\r\n',
    {},
    400,
  ],
  [
    'a body shorter than its Content-Length',
    head('POST /v1/holds/x/extend HTTP/1.1', 'Content-Type: application/json', 'Content-Length: 50') +
      '{"ttlSeconds":',
    { end: true },
    400,
  ],
  ['raw non-ASCII bytes in the path', Buffer.from(head('GET /v1/événements HTTP/1.1'), 'utf8'), {}, 400],
  ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n', {}, 400],
  ['a NUL in a header value', head('GET /v1/events HTTP/1.1', 'X-Note: a\u0000b'), {}, 400],
  ['headers over the size limit', head('GET /v1/events HTTP/1.1', `X-Big: ${'a'.repeat(20_000)}`), {}, 431],
])('answers %s in the envelope, with x-request-id', async (_name, request, opts, status) => {
  const r = await rawRequest(api.base, request, opts);
  expect({ status: r.status, body: r.body }).toEqual({
    status,
    body: {
      statusCode: status,
      code: expect.stringMatching(/^[A-Z_]+$/),
      message: expect.any(String),
      requestId: expect.any(String),
    },
  });
  expect(r.headers['x-request-id']).toBe(r.body.requestId);
  expect(r.headers['content-type']).toMatch(/application\/json/);
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
