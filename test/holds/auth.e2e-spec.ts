/**
 * Who may call: a Bearer JWT (HS256, AUTH_JWT_SECRET, issuer when configured) whose `sub` is a usable
 * user id. Anything else is 401; a missing role is 403; the holder always comes from the token.
 */
import { SignJWT, UnsecuredJWT } from 'jose';
import { eventually } from '@test/support/eventually';
import { Api, createEvent, startApi } from '@test/support/seat-api';

const ISSUER = 'https://auth.example.test';
let api: Api;
let eventId: string;
const secret = () => new TextEncoder().encode(process.env.AUTH_JWT_SECRET);

beforeAll(async () => {
  api = await startApi({ AUTH_JWT_ISSUER: ISSUER });
  eventId = await createEvent(api, 1, 5);
});
afterAll(async () => {
  delete process.env.AUTH_JWT_ISSUER;
  await api?.close();
});

async function sign(p: { sub?: string; roles?: unknown; iss?: string; exp?: string | number; alg?: string }) {
  let jwt = new SignJWT(p.roles === undefined ? {} : { roles: p.roles })
    .setProtectedHeader({ alg: p.alg ?? 'HS256' })
    .setIssuer(p.iss ?? ISSUER)
    .setExpirationTime(p.exp ?? '1h');
  if (p.sub !== undefined) {
    jwt = jwt.setSubject(p.sub);
  }
  return jwt.sign(secret());
}
/**
 * A route that needs a token (the seat map is public): reading a hold that does not exist answers 404
 * HOLD_NOT_FOUND once the token is accepted, and 401 before.
 */
const probe = (token?: string, authorization?: string) =>
  api.call('GET', `/v1/holds/${eventId.replace(/-/g, '')}AAAAAAAAAAA`, {
    token,
    headers: authorization ? { authorization } : {},
  });
const accepted = (r: { status: number; body: any }) => r.status === 404 && r.body.code === 'HOLD_NOT_FOUND';

it('accepts a valid token for the configured issuer', async () => {
  expect(accepted(await probe(await sign({ sub: 'alice' })))).toBe(true);
  expect(accepted(await probe(await sign({ sub: 'user@example.com:42' })))).toBe(true);
});

it.each([
  ['no Authorization header', () => Promise.resolve({})],
  ['a Basic header', () => Promise.resolve({ authorization: 'Basic YWxpY2U6cGFzcw==' })],
  [
    'an expired token',
    async () => ({ token: await sign({ sub: 'alice', exp: Math.floor(Date.now() / 1000) - 60 }) }),
  ],
  ['another issuer', async () => ({ token: await sign({ sub: 'alice', iss: 'https://evil.example' }) })],
  ['no subject', async () => ({ token: await sign({}) })],
  ['a subject that is not a usable user id', async () => ({ token: await sign({ sub: 'alice smith' }) })],
  [
    'an HS512 token (only HS256 is accepted)',
    async () => ({ token: await sign({ sub: 'alice', alg: 'HS512' }) }),
  ],
  [
    'an unsigned token (alg none)',
    () =>
      Promise.resolve({
        token: new UnsecuredJWT({ sub: 'alice' }).setIssuer(ISSUER).setExpirationTime('1h').encode(),
      }),
  ],
])('refuses %s with 401 in the envelope', async (_name, make) => {
  const { token, authorization } = (await make()) as { token?: string; authorization?: string };
  const r = await probe(token, authorization);
  expect(r.status).toBe(401);
  expect(r.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED', requestId: expect.any(String) });
});

it('needs the admin role to create events (403), whatever else the token says', async () => {
  for (const roles of [undefined, [], ['user'], 'admin', [{ name: 'admin' }]]) {
    const r = await api.call('POST', '/v1/events', {
      token: await sign({ sub: 'alice', roles }),
      body: { name: 'x', startsAt: '2030-01-01T00:00:00Z', sections: [] },
    });
    expect([roles, r.status, r.body.code]).toEqual([roles, 403, 'FORBIDDEN']);
  }
});

it('takes the holder from the token, never from the body', async () => {
  const token = await sign({ sub: 'alice' });
  const smuggled = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token,
    body: { seatIds: ['S-A-1'], userId: 'bob' },
  });
  expect(smuggled.status).toBe(400);
  expect(smuggled.body.errors).toEqual([{ field: 'userId', message: expect.any(String) }]);
  const ok = await api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds: ['S-A-1'] } });
  expect(ok.body.userId).toBe('alice');
});

it('refuses a token once it expires, although it was accepted (and remembered) a moment before', async () => {
  const token = await sign({ sub: 'carol', exp: Math.floor(Date.now() / 1000) + 2 });
  expect(accepted(await probe(token))).toBe(true);
  expect(accepted(await probe(token))).toBe(true); // second use: served from the verified-token cache
  await eventually(async () => (await probe(token)).status === 401, 5000, 'the expired token refused');
  const late = await probe(token);
  expect(late.status).toBe(401);
  expect(late.body.code).toBe('UNAUTHORIZED');
});
