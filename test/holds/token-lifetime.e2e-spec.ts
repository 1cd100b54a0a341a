/**
 * A token is good for a bounded time: it must carry `exp`, and `exp` may lie at most
 * AUTH_MAX_TOKEN_LIFETIME_SECONDS ahead. A token without `exp`, or one valid for centuries, would let
 * whoever copied it act for its user forever; both are refused 401 like an expired token.
 */
import { SignJWT } from 'jose';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let eventId: string;
const secret = () => new TextEncoder().encode(process.env.AUTH_JWT_SECRET);
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  api = await startApi({ AUTH_MAX_TOKEN_LIFETIME_SECONDS: '3600' });
  eventId = await createEvent(api, 1, 5);
});
afterAll(async () => {
  delete process.env.AUTH_MAX_TOKEN_LIFETIME_SECONDS;
  await api?.close();
});

/** Signed with the deployment's secret; `exp` as given (left out when undefined). */
function sign(exp?: number) {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('alice');
  return (exp === undefined ? jwt : jwt.setExpirationTime(exp)).sign(secret());
}

/** Reading a hold that does not exist: 404 once the token is accepted, 401 before. */
const probe = async (token: string) =>
  (await api.call('GET', `/v1/holds/${eventId.replace(/-/g, '')}AAAAAAAAAAA`, { token })).status;

it.each([
  ['no exp', undefined],
  ['exp = 1e20', 1e20],
  ['exp past AUTH_MAX_TOKEN_LIFETIME_SECONDS (2 h ahead, max 1 h)', () => now() + 7200],
])('refuses a token with %s: 401, each time it is sent', async (_name, exp) => {
  const token = await sign(typeof exp === 'function' ? exp() : exp);
  expect(await probe(token)).toBe(401);
  expect(await probe(token)).toBe(401); // not let in from a cache on the second request either
});

it('accepts a token whose exp lies within AUTH_MAX_TOKEN_LIFETIME_SECONDS', async () => {
  const token = await sign(now() + 3000);
  expect(await probe(token)).toBe(404);
  expect(await probe(token)).toBe(404);
});
