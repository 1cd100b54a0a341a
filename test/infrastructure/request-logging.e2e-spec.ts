/**
 * Logs and request ids as an operator reads them, from the real process's stdout: JSON lines, the lines
 * that say what a request did carry that request's id, structured fields instead of interpolated text,
 * and a client's x-request-id is taken only when it is a sane token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { eventually } from '@test/support/eventually';
import { freePort } from '@test/support/private-redis';
import { SpawnedApi, spawnApi } from '@test/support/spawn-api';

let dir: string;
let api: SpawnedApi;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seat-log-'));
  const port = await freePort();
  api = spawnApi(dir, { PORT: String(port), LOG_LEVEL: 'log', LOG_FORMAT: 'json' });
  await api.waitUntilUp(port);
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const token = (sub: string, roles: string[] = []) =>
  new SignJWT({ roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(process.env.AUTH_JWT_SECRET));

const post = async (path: string, body: unknown, headers: Record<string, string>) => {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, id: res.headers.get('x-request-id'), body: (await res.json()) as any };
};

/** The JSON log lines written so far (other output, if any, is skipped). */
function logLines(): Record<string, unknown>[] {
  return api
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('request ids and logs', () => {
  it('tag the lines that say what a request did with its id, as structured fields', async () => {
    const admin = { authorization: `Bearer ${await token('log-admin', ['admin'])}` };
    const created = await post(
      '/v1/events',
      {
        name: 'Log show',
        startsAt: '2030-01-01T20:00:00Z',
        sections: [{ name: 'S', category: 'c', rows: [{ row: 'A', seats: 3 }] }],
      },
      { ...admin, 'x-request-id': 'client-req-0001' },
    );
    expect(created.status).toBe(201);
    expect(created.id).toBe('client-req-0001');
    const hold = await post(
      `/v1/events/${created.body.eventId}/holds`,
      { seatIds: ['S-A-1'] },
      { authorization: `Bearer ${await token('log-alice')}`, 'x-request-id': 'client-req-0002' },
    );
    expect(hold.status).toBe(201);
    // pino writes asynchronously: wait for the request's line to reach the process's stdout
    await eventually(
      () => logLines().some((l) => l.requestId === 'client-req-0002' && l.msg === 'hold created'),
      10_000,
      'the hold line in the log',
    );
    const lines = logLines();
    const ofHold = lines.filter((l) => l.requestId === 'client-req-0002');
    expect(ofHold).toContainEqual(
      expect.objectContaining({
        app: 'seat-api',
        msg: 'hold created',
        holdId: hold.body.holdId,
        eventId: created.body.eventId,
        userId: 'log-alice',
      }),
    );
    expect(lines.filter((l) => l.requestId === 'client-req-0001').length).toBeGreaterThan(0);
    // no token reaches the log
    expect(api.output()).not.toContain('Bearer ');
  });

  it('replace an x-request-id that is not a sane token with a new one', async () => {
    const hostile = 'my id with spaces <script>';
    const r = await post('/v1/events', {}, { 'x-request-id': hostile });
    expect(r.status).toBe(401);
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.requestId).toBe(r.id);
    expect(JSON.stringify(r.body)).not.toContain('<script>');
    expect(api.output()).not.toContain('<script>');
  });
});
