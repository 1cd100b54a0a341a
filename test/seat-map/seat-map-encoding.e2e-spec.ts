/**
 * GET /v1/events/{eventId}/seats compressed for clients that accept it (a browser sends
 * `Accept-Encoding: gzip, deflate, br`), against a private Redis and the shared PostgreSQL: the body
 * decodes to exactly the identity body, Vary names Accept-Encoding, If-None-Match still answers 304, a
 * change is never answered with the previous version's compressed body, and one version is compressed
 * once however many clients ask at the same moment.
 *
 * Requests go through node:http, not fetch: fetch asks for gzip/br itself and decodes what it gets,
 * which would hide the encoding this file checks.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { Api, startApi } from '@test/support/seat-api';

let redis: PrivateRedis;
let api: Api;
let alice: string;

beforeAll(async () => {
  redis = await startPrivateRedis();
  api = await startApi({ REDIS_URL: redis.url });
  alice = await api.token('alice');
});
afterAll(async () => {
  await api?.close();
  await redis?.stop();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One GET with exactly these headers; the body as sent (not decoded). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${api.base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** An event of `rows` rows of `perRow` seats in sections A and B: ids `<section>-R<n>-<m>`. */
async function createEvent(rows: number, perRow: number): Promise<string> {
  const r = await api.call('POST', '/v1/events', {
    token: await api.token('admin', ['admin']),
    body: {
      name: 'Encoded show',
      startsAt: '2030-01-01T20:00:00Z',
      sections: ['A', 'B'].map((name) => ({
        name,
        category: 'standard',
        rows: Array.from({ length: rows }, (_, i) => ({ row: `R${i + 1}`, seats: perRow })),
      })),
    },
  });
  expect(r.status).toBe(201);
  return r.body.eventId as string;
}

const BROWSER = 'gzip, deflate, br';
const mapPath = (eventId: string) => `/v1/events/${eventId}/seats`;
const varyOf = (r: Raw) => String(r.headers.vary ?? '').toLowerCase();
const hold = (eventId: string, seatIds: string[]) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds, ttlSeconds: 60 } });

async function metric(name: string, labels = ''): Promise<number> {
  const text = (await api.call('GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('GET /v1/events/:eventId/seats, compressed', () => {
  it('sends gzip to a client that accepts gzip: the same bytes as identity once gunzipped, with Vary', async () => {
    const eventId = await createEvent(10, 20); // 400 seats, ~50 KB of JSON
    const identity = await rawGet(mapPath(eventId));
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(varyOf(identity)).toContain('accept-encoding');
    expect(identity.body.length).toBeGreaterThan(40_000);

    const gzipped = await rawGet(mapPath(eventId), { 'accept-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(varyOf(gzipped)).toContain('accept-encoding');
    expect(gzipped.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(gzipped.headers.etag).toBe(identity.headers.etag);
    expect(Number(gzipped.headers['content-length'])).toBe(gzipped.body.length);
    expect(gzipped.body.length).toBeLessThan(identity.body.length / 10);
    expect(gunzipSync(gzipped.body).equals(identity.body)).toBe(true);
    // the compressed body is kept with the snapshot: the next reader gets the very same bytes
    const again = await rawGet(mapPath(eventId), { 'accept-encoding': 'gzip' });
    expect(again.body.equals(gzipped.body)).toBe(true);
  });

  it('prefers br when a browser offers gzip, deflate, br; honours q=0; identity without the header', async () => {
    const eventId = await createEvent(10, 20);
    const identity = await rawGet(mapPath(eventId), { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    const br = await rawGet(mapPath(eventId), { 'accept-encoding': BROWSER });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(varyOf(br)).toContain('accept-encoding');
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    const noBr = await rawGet(mapPath(eventId), { 'accept-encoding': 'br;q=0, gzip' });
    expect(noBr.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(noBr.body).equals(identity.body)).toBe(true);
    const neither = await rawGet(mapPath(eventId), { 'accept-encoding': 'gzip;q=0, deflate' });
    expect(neither.headers['content-encoding']).toBeUndefined();
    expect(neither.body.equals(identity.body)).toBe(true);
  });

  it('answers If-None-Match with 304 (no body, Vary kept) whatever the encoding, and 200 after a change', async () => {
    const eventId = await createEvent(10, 20);
    const first = await rawGet(mapPath(eventId), { 'accept-encoding': 'gzip' });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"(\d+:)?\d+"$/);
    for (const acceptEncoding of ['gzip', BROWSER, 'identity']) {
      const same = await rawGet(mapPath(eventId), {
        'accept-encoding': acceptEncoding,
        'if-none-match': etag,
      });
      expect([acceptEncoding, same.status, same.body.length]).toEqual([acceptEncoding, 304, 0]);
      expect(same.headers.etag).toBe(etag);
      expect(same.headers['content-encoding']).toBeUndefined();
      expect(varyOf(same)).toContain('accept-encoding');
    }
    // a change: never the previous version's compressed body
    expect((await hold(eventId, ['A-R1-1'])).status).toBe(201);
    const changed = await rawGet(mapPath(eventId), { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers['content-encoding']).toBe('gzip');
    expect(changed.headers.etag).not.toBe(etag);
    const map = JSON.parse(gunzipSync(changed.body).toString()) as {
      version: number;
      seats: { seatId: string; status: string }[];
    };
    expect(changed.headers.etag).toMatch(new RegExp(`^W/"(\\d+:)?${map.version}"$`));
    expect(map.seats.find((s) => s.seatId === 'A-R1-1')?.status).toBe('HELD');
    const identity = await rawGet(mapPath(eventId));
    expect(identity.headers.etag).toBe(changed.headers.etag);
    expect(gunzipSync(changed.body).equals(identity.body)).toBe(true);
  });

  it('compresses one version once however many clients ask together, and counts it in the cache budget', async () => {
    const eventId = await createEvent(50, 200); // 20,000 seats, ~2.6 MB of JSON
    const identity = await rawGet(mapPath(eventId)); // builds the snapshot, renders the identity body
    const bytes0 = await metric('memory_cache_bytes', '{cache="seat_map"}');
    const compressions0 = await metric('seat_map_compressions_total', '{encoding="gzip",outcome="kept"}');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => rawGet(mapPath(eventId), { 'accept-encoding': 'gzip' })),
    );
    const compressions1 = await metric('seat_map_compressions_total', '{encoding="gzip",outcome="kept"}');
    expect(compressions1 - compressions0).toBe(1);
    // the readers that came while it was being made waited for it: all twenty got gzip
    expect(answers.map((a) => a.headers['content-encoding'])).toEqual(Array(20).fill('gzip'));
    expect(new Set(answers.map((a) => a.body.toString('base64'))).size).toBe(1);
    expect(gunzipSync(answers[0].body).equals(identity.body)).toBe(true);
    const bytes1 = await metric('memory_cache_bytes', '{cache="seat_map"}');
    expect(bytes1 - bytes0).toBe(answers[0].body.length);
  });

  it('sends a small map as it is (nothing to gain), and a section as it is (rendered per request)', async () => {
    const small = await createEvent(1, 2); // 4 seats
    const tiny = await rawGet(mapPath(small), { 'accept-encoding': BROWSER });
    expect(tiny.status).toBe(200);
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(tiny.body.toString()).counts.total).toBe(4);
    const eventId = await createEvent(10, 20);
    const section = await rawGet(`${mapPath(eventId)}?section=A`, { 'accept-encoding': BROWSER });
    expect(section.status).toBe(200);
    expect(section.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(section.body.toString()).counts.total).toBe(200);
  });
});
