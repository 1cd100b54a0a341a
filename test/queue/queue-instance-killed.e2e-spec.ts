/**
 * An on-sale queue with two seat API processes, one killed with SIGKILL mid-sale: places, numbers and
 * passes are in Redis, so the survivor reads them as they were; admission goes on at the pace from the
 * survivor's own steps (no lease or leader to take over), and a pass issued before the kill takes a hold
 * on the survivor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { freePort } from '@test/support/private-redis';
import { eventually } from '@test/support/eventually';
import { spawnApi, SpawnedApi } from '@test/support/spawn-api';

jest.setTimeout(120_000);

let dir: string;
const apis: SpawnedApi[] = [];
let ports: number[] = [];

const secret = new TextEncoder().encode(process.env.AUTH_JWT_SECRET);
const token = (sub: string, roles: string[] = []) =>
  new SignJWT({ roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('1h')
    .sign(secret);

async function call(port: number, method: string, path: string, tok?: string, body?: unknown, headers = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      ...(tok ? { authorization: `Bearer ${tok}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'queue-killed-'));
  ports = [await freePort(), await freePort()];
  for (const port of ports) {
    const api = spawnApi(dir, { PORT: String(port), QUEUE_STEP_MS: '100', RATE_LIMIT_ENABLED: 'false' });
    apis.push(api);
  }
  await Promise.all(apis.map((a, i) => a.waitUntilUp(ports[i])));
});
afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  rmSync(dir, { recursive: true, force: true });
});

it('keeps places, numbers and passes, and admits on from the survivor', async () => {
  const [a, b] = ports;
  const admin = await token('admin-1', ['admin']);
  const created = await call(a, 'POST', '/v1/events', admin, {
    name: 'On-sale',
    startsAt: '2030-01-01T20:00:00Z',
    sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 50 }] }],
  });
  const eventId = created.body.eventId as string;
  const opensAt = Date.now() + 1000;
  // a slow pace: 60 a minute, so the steps after the kill are what admits the later shoppers
  const set = await call(a, 'PUT', `/v1/events/${eventId}/queue`, admin, {
    opensAt: new Date(opensAt).toISOString(),
    salesStartAt: new Date(opensAt + 1000).toISOString(),
    order: 'fifo',
    admitPerMinute: 60,
    maxActiveShoppers: 50,
  });
  expect(set.status).toBe(200);
  await eventually(() => Date.now() > opensAt + 100, 5_000, 'the queue opened');
  const users = await Promise.all(Array.from({ length: 6 }, (_, i) => token(`shopper-${i}`)));
  const entries: { entryId: string; number: number }[] = [];
  for (const u of users) {
    const joined = await call(b, 'POST', `/v1/events/${eventId}/queue/entries`, u);
    expect(joined.status).toBe(201);
    entries.push(joined.body);
  }
  // the first shopper is admitted and gets a pass on the instance that is about to die
  await eventually(
    async () =>
      (await call(a, 'GET', `/v1/queue/entries/${entries[0].entryId}`, users[0])).body.status === 'ADMITTED',
    20_000,
    'first shopper admitted',
  );
  const pass = (await call(a, 'GET', `/v1/queue/entries/${entries[0].entryId}`, users[0])).body
    .pass as string;
  expect(pass).toBeTruthy();

  apis[0].child.kill('SIGKILL');
  await new Promise((r) => apis[0].child.once('exit', r));

  // the survivor: the same places and numbers, the same pass, and a hold made with it
  for (const [i, e] of entries.entries()) {
    const read = await call(b, 'GET', `/v1/queue/entries/${e.entryId}`, users[i]);
    expect([read.status, read.body.number]).toEqual([200, e.number]);
  }
  expect((await call(b, 'GET', `/v1/queue/entries/${entries[0].entryId}`, users[0])).body.pass).toBe(pass);
  const held = await call(
    b,
    'POST',
    `/v1/events/${eventId}/holds`,
    users[0],
    { seatIds: ['S-A-1'] },
    { 'queue-pass': pass },
  );
  expect(held.status).toBe(201);
  // admission goes on from the survivor's steps, in order
  await eventually(
    async () => {
      const last = await call(b, 'GET', `/v1/queue/entries/${entries[3].entryId}`, users[3]);
      return last.body.status === 'ADMITTED';
    },
    20_000,
    'admission went on after the kill',
  );
  const waitingLast = await call(b, 'GET', `/v1/queue/entries/${entries[5].entryId}`, users[5]);
  expect(['WAITING', 'ADMITTED']).toContain(waitingLast.body.status);
  const status = await call(b, 'GET', `/v1/events/${eventId}/queue`);
  expect(status.body.servingNumber).toBeGreaterThanOrEqual(4);
});
