/**
 * Browser readiness: CORS is off unless CORS_ORIGINS lists origins, and then a preflight from a
 * listed origin is allowed (with the headers a box-office page needs to send and read) while any other
 * origin gets no CORS headers; every answer carries helmet's security headers. The seat picker page keeps
 * its own stricter policy (test/seat-picker covers the page itself).
 * The configured app gets its AppConfig through overrideProvider, not process.env.
 */
import { AppConfig } from '@app/config';
import { Api, configWith, startApi } from '@test/support/seat-api';

const ALLOWED = 'https://box-office.example';
const OTHER = 'https://elsewhere.example';

let plain: Api;
let withCors: Api;

beforeAll(async () => {
  plain = await startApi();
  withCors = await startApi({}, (m) =>
    m
      .overrideProvider(AppConfig)
      .useValue(configWith({ CORS_ORIGINS: `${ALLOWED},https://tickets.example:8443` })),
  );
});
afterAll(async () => {
  await withCors?.close();
  await plain?.close();
});

/** What a browser sends before a cross-origin POST with a token and an idempotency key. */
const preflight = (api: Api, origin: string) =>
  fetch(`${api.base}/v1/events/7f1c1d64-3f5e-4c1b-9a51-9f0d3f0d8e11/holds`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    },
  });

describe('CORS', () => {
  it('allows a preflight from a listed origin, with the methods and headers the API uses', async () => {
    const res = await preflight(withCors, ALLOWED);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const allowed = res.headers.get('access-control-allow-headers')?.toLowerCase() ?? '';
    for (const header of ['authorization', 'content-type', 'idempotency-key']) {
      expect(allowed).toContain(header);
    }
  });

  it('lets a listed origin read the headers clients act on (request id, Retry-After, replay flag)', async () => {
    const res = await fetch(`${withCors.base}/health/live`, { headers: { origin: ALLOWED } });
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const exposed = res.headers.get('access-control-expose-headers')?.toLowerCase() ?? '';
    for (const header of ['x-request-id', 'retry-after', 'idempotent-replayed']) {
      expect(exposed).toContain(header);
    }
  });

  it('gives an origin that is not listed no CORS headers', async () => {
    const res = await preflight(withCors, OTHER);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(`${withCors.base}/health/live`, { headers: { origin: OTHER } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is off by default: no origin is allowed without CORS_ORIGINS', async () => {
    const res = await preflight(plain, ALLOWED);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('helmet', () => {
  it('puts its security headers on API answers', async () => {
    const res = await plain.call('GET', '/v1/holds/some-hold');
    expect(res.status).toBe(401);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    // the service is reached over plain http in development and behind a TLS proxy in production: a
    // policy that upgrades every request to https would break /docs on http
    expect(res.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    expect(res.headers.get('x-request-id')).toBeTruthy(); // our own headers survive
  });

  it('leaves the seat picker page its own, stricter policy', async () => {
    const page = await fetch(`${plain.base}/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'none'");
  });

  it('keeps the API docs page loadable (its scripts come from this origin)', async () => {
    const docs = await fetch(`${plain.base}/docs`);
    expect(docs.status).toBe(200);
    const html = await docs.text();
    expect(html).toMatch(/<script src="[^"]*swagger-ui-init\.js"/);
    expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});
