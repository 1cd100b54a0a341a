/**
 * Hostile input on every route of the served OpenAPI document (/docs-json), against the real services:
 * each path parameter, query parameter, documented header and body field (at any depth) replaced by
 * something hostile (NUL, huge strings, odd unicode, wrong types, deep nesting, prototype names), bodies
 * that are not JSON or not declared as JSON, empty bodies, and no, bad or too weak tokens. Whatever the
 * input, the answer is never a 5xx, and every error answer is the project's envelope
 * `{ statusCode, code, message, errors?, requestId }` with the same id in x-request-id.
 *
 * The routes come from the document, so a new route is covered the day it is documented. A sweep gives
 * every route each kind of defect its inputs allow; fast-check then combines them at random (a failure
 * prints its seed and the request).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { rawRequest } from '@test/support/raw-http';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(600_000);

interface Schema {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  minimum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
}
interface Operation {
  operationId: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Route {
  method: string;
  /** the path template, `/v1/holds/{holdId}` */
  template: string;
  op: Operation;
  params: Parameter[];
  /** a body as the schema's examples make it (not always valid), for routes that take one */
  body?: unknown;
  /** where in that body a hostile value goes: every member it has, and each optional field it left out */
  places: (string | number)[][];
}

/** One request; `what` says which input is hostile, for the failure message and the coverage count. */
interface Case {
  route: Route;
  what: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** sent over a bare socket: a GET with a body, which fetch refuses to send */
  viaSocket?: boolean;
}

let api: Api;
let doc: {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
let routes: Route[];
let tokens: Record<'alice' | 'agent' | 'admin', string>;
/** path parameter values that exist, so a case with one hostile input gets as far as that input allows */
let valid: Record<string, string>;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  tokens = {
    alice: await api.token('alice'),
    agent: await api.token('agent-1', ['agent']),
    admin: await api.token('root', ['admin']),
  };
  doc = (await api.call('GET', '/docs-json')).body;
  routes = Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const schema = op.requestBody?.content['application/json']?.schema;
      const body = schema ? withOwnValues(exampleOf(schema)) : undefined;
      const fields = Object.keys((schema && resolve(schema).properties) ?? {});
      const places = placesIn(body);
      for (const field of fields) {
        if (!places.some((p) => p.length === 1 && p[0] === field)) {
          places.push([field]);
        }
      }
      return { method: method.toUpperCase(), template, op, params: op.parameters ?? [], body, places };
    }),
  );
});
afterAll(() => api?.close());

/**
 * A new event with a live hold and a waiting-list entry of alice's, as the ids of the next cases: a case
 * that succeeds (a cancel, a release) leaves the next route's cases ids that still reach that far.
 */
async function freshIds(): Promise<void> {
  const eventId = await createEvent(api, 2, 10);
  const hold = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: tokens.alice,
    body: { seatIds: ['S-A-1'] },
  });
  const entry = await api.call('POST', `/v1/events/${eventId}/waitlist`, {
    token: tokens.alice,
    body: { quantity: 1 },
  });
  expect([hold.status, entry.status]).toEqual([201, 201]);
  valid = { eventId, holdId: hold.body.holdId, entryId: entry.body.entryId, bookingId: randomUUID() };
}

// ---- the schema's own examples: a body to spoil one field of --------------------------------------------

function resolve(schema: Schema): Schema {
  if (schema.$ref) {
    return resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  }
  if (schema.allOf) {
    return schema.allOf.map(resolve).reduce((a, b) => ({ ...a, ...b }), {});
  }
  return schema;
}

function exampleOf(raw: Schema): unknown {
  const schema = resolve(raw);
  if (schema.example !== undefined) {
    return structuredClone(schema.example);
  }
  if (schema.enum) {
    return schema.enum[0];
  }
  if (schema.type === 'object' || schema.properties) {
    const required = schema.required ?? [];
    return Object.fromEntries(
      Object.entries(schema.properties ?? {})
        .filter(([name]) => required.includes(name))
        .map(([name, s]) => [name, exampleOf(s)]),
    );
  }
  if (schema.type === 'array') {
    return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items ?? {}));
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    return schema.minimum ?? 1;
  }
  if (schema.type === 'boolean') {
    return true;
  }
  return schema.format === 'date-time' ? '2030-01-01T20:00:00Z' : 'x';
}

/**
 * The example body with the fields that name things of the test's own in place of the document's examples
 * (its seats are S-<row>-<n>), so the only defect of a case is the one it brings.
 */
function withOwnValues(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return body;
  }
  const own: Record<string, unknown> = { seatIds: ['S-B-9'], customerId: 'bob' };
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, key in own ? own[key] : value]));
}

/** Every place in a JSON value a field or element sits, as key paths (`['sections', 0, 'rows']`). */
function placesIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) {
    return [];
  }
  return Object.entries(value).flatMap(([key, v]) => {
    const place = [...at, Array.isArray(value) ? Number(key) : key];
    return [place, ...placesIn(v, place)];
  });
}

/** `value` with the member at `place` replaced by `by` (a copy). */
function replaced(value: unknown, place: (string | number)[], by: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of place.slice(0, -1)) {
    parent = parent[key] as Record<string | number, unknown>;
  }
  parent[place[place.length - 1]] = by;
  return copy;
}

// ---- hostile values ----------------------------------------------------------------------------------

const NESTED_40 = JSON.parse('['.repeat(40) + ']'.repeat(40)) as unknown;
/** Own keys named like Object.prototype's members (JSON.parse makes `__proto__` an own key). */
const PROTOTYPE_KEYS = JSON.parse('{"__proto__":{"isAdmin":true},"constructor":{"prototype":1}}') as unknown;

const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '',
  ' ',
  'x'.repeat(5_000),
  'x'.repeat(100_000), // over the body limit, and over the header size limit in a URL
  '😀🎭',
  'é',
  '\u202eevil',
  '\ufeffbom',
  'Ω≈ç√∫˜µ≤≥÷',
  'ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ',
  '\u0001\u001f\u007f',
  '../../etc/passwd',
  '%00',
  '%',
  "'; DROP TABLE events; --",
  '<script>alert(1)</script>',
  '${7*7}',
  '__proto__',
  'constructor',
  'null',
  'NaN',
  '-1',
  '1e400',
  '0x10',
];
const HOSTILE_VALUES: unknown[] = [
  ...HOSTILE_STRINGS.filter((s) => s.length < 1000 || s.length > 50_000),
  '\ud800', // a lone surrogate: JSON.stringify escapes it, the parser gives it back
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  true,
  null,
  [],
  {},
  [null],
  [{}],
  { $gt: '' },
  PROTOTYPE_KEYS,
  NESTED_40,
];
/** Path parameters: encoded as a client would (a URL cannot carry some of these raw). */
const HOSTILE_PATH_VALUES = [
  ...HOSTILE_STRINGS.filter((s) => s !== '' && s.length < 50_000),
  'x'.repeat(2_000),
  '..',
  'a/b',
  'a?b#c',
  '00000000-0000-0000-0000-000000000000',
  randomUUID(), // well formed, no such thing
  randomUUID().toUpperCase(),
  '{}',
];
const NOT_JSON = ['{', '{"a":', '[1,]', "{'a':1}", 'undefined', '\u0000', '{"a":1}{"b":2}', 'NaN', '\ufeff'];
const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json-patch+json',
  'application/octet-stream',
];
/** Odd query strings whatever the route's parameters. */
const ODD_QUERIES = [
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  'a[b][c]=1',
  '%00=1',
  'x=1&x=2&x=3',
  '=&&==',
];

// ---- requests ----------------------------------------------------------------------------------------

/** As a client encodes a URL part: a lone surrogate (which no URL can carry) becomes U+FFFD, as in UTF-8. */
const encode = (value: string) => encodeURIComponent(value.replace(/\p{Cs}/gu, '\ufffd'));

function pathOf(route: Route, hostile?: { name: string; value: string }): string {
  return route.template.replace(/\{(\w+)\}/g, (_m, name: string) =>
    encode(hostile?.name === name ? hostile.value : (valid[name] ?? 'x')),
  );
}

/**
 * The caller who gets furthest, so the hostile input itself is what is answered: the owner (alice) on a
 * customer's routes (someone else's hold or entry is a 404 before anything else), else an admin (past
 * every role guard).
 */
const callerOf = (route: Route) =>
  route.op.tags?.some((t) => t === 'holds' || t === 'waitlist') ? tokens.alice : tokens.admin;

function base(route: Route, what: string): Case {
  const c: Case = {
    route,
    what,
    path: pathOf(route),
    headers: { authorization: `Bearer ${callerOf(route)}` },
  };
  if (route.body !== undefined) {
    c.headers['content-type'] = 'application/json';
    c.body = JSON.stringify(route.body);
  }
  return c;
}

const withBody = (c: Case, body: string | undefined, contentType?: string): Case => {
  const headers = { ...c.headers };
  delete headers['content-type'];
  return {
    ...c,
    body,
    headers: contentType === undefined ? headers : { ...headers, 'content-type': contentType },
  };
};

/**
 * Every defect this route's inputs allow, each at least once. Those whose request is otherwise sound come
 * last (odd queries, other callers, an empty body where none is taken): they may succeed and end the hold
 * or event the others need.
 */
function sweep(route: Route): Case[] {
  const cases: Case[] = [];
  const json = (c: Case, value: unknown) => withBody(c, JSON.stringify(value), 'application/json');
  if (route.body !== undefined) {
    for (const place of route.places) {
      for (const value of HOSTILE_VALUES) {
        cases.push(json(base(route, 'body field'), replaced(route.body, place, value)));
      }
    }
    for (const value of HOSTILE_VALUES) {
      cases.push(json(base(route, 'whole body'), value));
      const extra = { ...(route.body as object), [String(value).slice(0, 40)]: value };
      cases.push(json(base(route, 'unknown body field'), extra));
    }
  }
  for (const p of route.params) {
    const values = p.in === 'path' ? HOSTILE_PATH_VALUES : HOSTILE_STRINGS;
    for (const value of values) {
      const c = base(route, `${p.in} ${p.name}`);
      if (p.in === 'path') {
        cases.push({ ...c, path: pathOf(route, { name: p.name, value }) });
      } else if (p.in === 'query') {
        cases.push({ ...c, path: `${c.path}?${p.name}=${encode(value)}` });
        cases.push({ ...c, path: `${c.path}?${p.name}=1&${p.name}=${encode(value)}` });
      } else if (/^[\u0020-\u007e\u00a0-\u00ff]{0,8000}$/.test(value)) {
        // a header carries latin1 bytes only (NUL, CR, LF and longer text: the parser's cases)
        cases.push({ ...c, headers: { ...c.headers, [p.name]: value } });
      }
    }
  }
  if (route.method === 'GET') {
    // a body on a GET: fetch will not send one, a socket will
    for (const [body, type] of [
      ['{"x":"\\u0000"}', 'application/json'],
      ['{"a":', 'application/json'],
      ['', 'application/json'],
      ['x=1', 'application/x-www-form-urlencoded'],
    ]) {
      cases.push({ ...withBody(base(route, 'a body on a GET'), body, type), viaSocket: true });
    }
  } else {
    for (const text of NOT_JSON) {
      cases.push(withBody(base(route, 'not JSON'), text, 'application/json'));
    }
    for (const type of WRONG_CONTENT_TYPES) {
      cases.push(withBody(base(route, 'wrong content type'), base(route, '').body ?? 'x=1', type));
    }
    cases.push(withBody(base(route, 'empty body'), undefined, 'application/json'));
    cases.push(withBody(base(route, 'empty body'), '', 'application/json'));
    cases.push(withBody(base(route, 'empty body'), undefined));
    if (route.body === undefined) {
      cases.push(json(base(route, 'a body where none is taken'), { x: '\u0000' }));
    }
  }
  for (const query of ODD_QUERIES) {
    const c = base(route, 'odd query');
    cases.push({ ...c, path: `${c.path}?${query}` });
  }
  for (const [what, authorization] of [
    ['no token', undefined],
    ['a token that is not one', 'Bearer \u00e9t\u00e9.x.y'],
    ['a customer token', `Bearer ${tokens.alice}`],
    ['an agent token', `Bearer ${tokens.agent}`],
    ['an admin token', `Bearer ${tokens.admin}`],
  ] as const) {
    const c = base(route, what);
    const headers = { ...c.headers };
    delete headers.authorization;
    cases.push({ ...c, headers: authorization ? { ...headers, authorization } : headers });
  }
  return cases;
}

interface Answer {
  status: number;
  body: any;
  requestId: string | null;
}

async function send(c: Case): Promise<Answer> {
  if (c.viaSocket) {
    const body = Buffer.from(c.body ?? '', 'utf8');
    const head = [
      `${c.route.method} ${c.path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Connection: close',
      ...Object.entries(c.headers).map(([name, value]) => `${name}: ${value}`),
      `Content-Length: ${body.length}`,
      '',
      '',
    ].join('\r\n');
    const a = await rawRequest(api.base, Buffer.concat([Buffer.from(head, 'latin1'), body]));
    return { status: a.status, body: a.body, requestId: a.headers['x-request-id'] ?? null };
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 15_000);
  try {
    const res = await fetch(`${api.base}${c.path}`, {
      method: c.route.method,
      headers: c.headers,
      body: c.body,
      signal: abort.signal,
    });
    const requestId = res.headers.get('x-request-id');
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      abort.abort(); // a seat-map stream that opened: it never ends by itself
      return { status: res.status, body: undefined, requestId };
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: the check below says so */
    }
    return { status: res.status, body, requestId };
  } finally {
    clearTimeout(timer);
  }
}

/** Never a 5xx; an error answer in the envelope. Throws with the request and the answer otherwise. */
function check(c: Case, a: Answer): void {
  const fail = (why: string) => {
    const shown = {
      ...c,
      route: `${c.route.method} ${c.route.template}`,
      headers: Object.fromEntries(Object.entries(c.headers).filter(([name]) => name !== 'authorization')),
      body: c.body?.slice(0, 300),
    };
    throw new Error(`${why}: ${JSON.stringify({ request: shown, status: a.status, answer: a.body })}`);
  };
  if (a.status >= 500) {
    fail('a 5xx');
  }
  if (a.status < 400) {
    return;
  }
  const b = a.body as Record<string, unknown> | undefined;
  const keys = Object.keys(b ?? {}).sort();
  if (
    typeof b !== 'object' ||
    b === null ||
    b.statusCode !== a.status ||
    typeof b.code !== 'string' ||
    !/^[A-Z][A-Z0-9_]+$/.test(b.code) ||
    typeof b.message !== 'string' ||
    typeof b.requestId !== 'string' ||
    b.requestId !== a.requestId ||
    keys.some((k) => !['statusCode', 'code', 'message', 'errors', 'requestId'].includes(k))
  ) {
    fail('an error answer outside the envelope');
  }
}

it('documents every route the fuzzing covers (the document is the list)', () => {
  expect(routes.length).toBeGreaterThanOrEqual(28);
  const templates = new Set(routes.map((r) => r.template));
  for (const t of ['/v1/events', '/v1/holds/{holdId}', '/v1/waitlist/{entryId}', '/health']) {
    expect(templates).toContain(t);
  }
});

it('answers every swept defect of every route without a 5xx, every error in the envelope', async () => {
  const seen = new Map<string, Map<string, number>>();
  // every failure, not only the first: one run shows all the routes and inputs that break
  const failures: string[] = [];
  for (const route of routes) {
    const kinds = new Map<string, number>();
    seen.set(`${route.method} ${route.template}`, kinds);
    await freshIds();
    for (const c of sweep(route)) {
      const a = await send(c);
      try {
        check(c, a);
      } catch (e) {
        failures.push((e as Error).message);
      }
      const kind = `${c.what} -> ${a.status}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
  }
  expect(failures).toEqual([]);
  // every route had each of its path, query, header and body inputs spoiled
  for (const route of routes) {
    const kinds = [...seen.get(`${route.method} ${route.template}`)!.keys()].map((k) => k.split(' -> ')[0]);
    for (const p of route.params) {
      expect(kinds).toContain(`${p.in} ${p.name}`);
    }
    if (route.body !== undefined) {
      expect(kinds).toEqual(
        expect.arrayContaining(['body field', 'whole body', 'not JSON', 'wrong content type']),
      );
    }
  }
  console.log(
    [...seen]
      .map(([route, kinds]) => `${route}: ${[...kinds].map(([k, n]) => `${k} x${n}`).join(', ')}`)
      .join('\n'),
  );
});

it('answers random combinations of defects on random routes the same way', async () => {
  const hostileString = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string({ unit: 'binary', maxLength: 64 }),
    fc.string({ unit: 'grapheme', maxLength: 64 }),
    fc.string({ maxLength: 5000 }),
  );
  const hostileValue = fc.oneof(
    hostileString,
    fc.constantFrom(...HOSTILE_VALUES),
    fc.jsonValue({ maxDepth: 4 }),
  );
  const request = fc
    .record({
      route: fc.nat(),
      pathParam: fc.option(hostileString, { nil: undefined }),
      query: fc.option(fc.tuple(fc.nat(), hostileString), { nil: undefined }),
      body: fc.option(fc.tuple(fc.nat(), hostileValue), { nil: undefined }),
      raw: fc.option(fc.oneof(fc.constantFrom(...NOT_JSON), fc.string({ maxLength: 200 })), {
        nil: undefined,
      }),
      contentType: fc.option(fc.constantFrom('application/json', ...WRONG_CONTENT_TYPES), { nil: undefined }),
      token: fc.constantFrom<keyof typeof tokens | 'none'>('admin', 'admin', 'alice', 'agent', 'none'),
    })
    // made when run, so it takes the ids of that moment
    .map((r) => (): Case => {
      const route = routes[r.route % routes.length];
      const c = base(route, 'random');
      const path = route.params.find((p) => p.in === 'path');
      if (path && r.pathParam !== undefined) {
        c.path = pathOf(route, { name: path.name, value: r.pathParam });
      }
      const queries = route.params.filter((p) => p.in === 'query').map((p) => p.name);
      if (r.query) {
        const [i, value] = r.query;
        c.path += `?${queries[i % Math.max(1, queries.length)] ?? 'x'}=${encode(value)}`;
      }
      if (r.token === 'none') {
        delete c.headers.authorization;
      } else {
        c.headers.authorization = `Bearer ${tokens[r.token]}`;
      }
      if (route.method === 'GET') {
        return withBody(c, undefined);
      }
      let body = c.body;
      if (r.raw !== undefined) {
        body = r.raw;
      } else if (r.body && route.body !== undefined) {
        const [i, value] = r.body;
        const places = route.places;
        body = JSON.stringify(places.length ? replaced(route.body, places[i % places.length], value) : value);
      }
      return withBody(c, body, r.contentType ?? (body === undefined ? undefined : 'application/json'));
    });
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(request, async (make) => {
      if (runs++ % 150 === 0) {
        await freshIds();
      }
      const c = make();
      check(c, await send(c));
    }),
    { numRuns: 3000, endOnFailure: true },
  );
});
