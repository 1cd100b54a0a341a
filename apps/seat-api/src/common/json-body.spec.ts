import Fastify, { FastifyInstance } from 'fastify';
import { DomainError } from './errors/domain-error';
import { EMPTY_JSON_BODY, installJsonBodyParser, inspectJsonText, MAX_JSON_DEPTH } from './json-body';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"k":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('inspectJsonText', () => {
  it.each([
    ['a flat object', '{"seatIds":["S-A-1"],"ttlSeconds":60}'],
    ['an event layout', '{"sections":[{"name":"S","rows":[{"row":"A","seats":2},{"row":"B","seats":2}]}]}'],
    ['the same keys in sibling objects', '[{"a":1,"b":2},{"a":1,"b":2}]'],
    ['the same key at two levels', '{"a":{"a":{"a":1}}}'],
    ['braces, quotes and escapes inside strings', '{"a":"{[\\"a\\":1,\\"a\\":2]}\\\\","b":"]]]}}}"}'],
    ['a key that only looks like a value', '{"a":"b","b":"a"}'],
    ['scalars', '"x"'],
    [`arrays ${MAX_JSON_DEPTH} deep`, arrays(MAX_JSON_DEPTH)],
    [`objects ${MAX_JSON_DEPTH} deep`, objects(MAX_JSON_DEPTH)],
  ])('accepts %s', (_what, text) => {
    JSON.parse(text); // the inspector only ever sees valid JSON
    expect(inspectJsonText(text)).toBeNull();
  });

  it.each([
    [
      `arrays ${MAX_JSON_DEPTH + 1} deep`,
      arrays(MAX_JSON_DEPTH + 1),
      '0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0',
    ],
    ['arrays 100,000 deep', arrays(100_000), undefined],
    ['objects 5,000 deep', objects(5000), undefined],
    ['deep under a named field', `{"seatIds":["a",${arrays(40)}]}`, undefined],
  ])('refuses %s, naming where', (_what, text, field) => {
    const problem = inspectJsonText(text);
    expect(problem?.message).toMatch(/deeper than 32/);
    if (field) {
      expect(problem?.field).toBe(field);
    }
  });

  it('names the field under which nesting got too deep', () => {
    const problem = inspectJsonText(`{"seatIds":["a",${arrays(40)}]}`);
    expect(problem?.field).toMatch(/^seatIds\.1(\.0)*$/);
  });

  it.each([
    ['a repeated key', '{"seatIds":[],"seatIds":[]}', 'seatIds'],
    ['a repeated key, one escaped', '{"ttlSeconds":1,"ttl\\u0053econds":2}', 'ttlSeconds'],
    [
      'a repeated key deep inside',
      '{"sections":[{"name":"S"},{"name":"T","rows":[],"name":"U"}]}',
      'sections.1.name',
    ],
    ['a repeated empty key', '{"":1,"":2}', ''],
    [
      'a key repeated among many',
      `{"o":{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}}`,
      'o.k7',
    ],
  ])('refuses %s, naming it', (_what, text, field) => {
    JSON.parse(text);
    expect(inspectJsonText(text)).toEqual({ field, message: 'appears more than once in its object' });
  });
});

/** A bare Fastify app with our parser, answering the parsed body back, or the error's code. */
async function appWithParser(): Promise<FastifyInstance> {
  const app = Fastify({ bodyLimit: 1024 });
  installJsonBodyParser(app);
  app.post('/', (req) => (req.body === EMPTY_JSON_BODY ? { empty: true } : { body: req.body }));
  app.setErrorHandler((e: Error & { statusCode?: number; code?: string }, _req, reply) =>
    reply
      .code(e instanceof DomainError ? 422 : (e.statusCode ?? 500))
      .send({ code: e.code, details: e instanceof DomainError ? e.details : undefined }),
  );
  await app.ready();
  return app;
}

describe('installJsonBodyParser', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await appWithParser();
  });
  afterAll(() => app.close());

  const post = (payload: string) =>
    app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload });

  it.each([
    ['a hold body', '{"seatIds":["S-A-1","S-A-2"]}'],
    ['a key constructor without prototype', '{"constructor":{"a":1},"b":{"constructor":1}}'],
    ['keys __proto__ and constructor as values', '{"a":"__proto__","b":{"c":"constructor"}}'],
    ['a scalar', '12'],
  ])('parses %s as JSON.parse does', async (_what, payload) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: JSON.parse(payload) });
  });

  it('strips a leading BOM, as Fastify does', async () => {
    const res = await post('\ufeff{"a":1}');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: { a: 1 } });
  });

  it.each([
    ['a __proto__ key', '{"seatIds":["S-A-1"],"__proto__":{"isAdmin":true}}'],
    ['a __proto__ key, escaped', '{"seatIds":["S-A-1"],"\\u005f\\u005fproto__":{"isAdmin":true}}'],
    ['a __proto__ key deep inside', '{"a":[[{"b":{"__proto__":null}}]]}'],
    ['a constructor with a prototype', '{"a":{"constructor":{"prototype":{"isAdmin":true}}}}'],
    ['a __proto__ key after a repeated key', '{"a":1,"a":2,"__proto__":{}}'],
    ['a __proto__ key past the depth limit', `{"a":${'['.repeat(40)}{"__proto__":{}}${']'.repeat(40)}}`],
    ['malformed JSON', '{"seatIds":'],
    ['a trailing comma', '{"a":1,}'],
  ])('refuses %s as malformed JSON (400), as Fastify does', async (_what, payload) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
  });

  it('passes an empty body on as EMPTY_JSON_BODY (the route decides), but refuses whitespace as malformed', async () => {
    const empty = await post('');
    expect([empty.statusCode, empty.json()]).toEqual([200, { empty: true }]);
    const blank = await post('  ');
    expect([blank.statusCode, blank.json()]).toEqual([400, { code: 'FST_ERR_CTP_INVALID_JSON_BODY' }]);
  });

  it('refuses a body over the limit (413)', async () => {
    const res = await post(JSON.stringify({ a: 'x'.repeat(2000) }));
    expect(res.statusCode).toBe(413);
  });

  it.each([
    ['a repeated key', '{"a":1,"a":2}', 'a'],
    ['a repeated constructor key', '{"constructor":{"prototype":1},"constructor":1}', 'constructor'],
  ])('refuses %s with VALIDATION_FAILED naming it', async (_what, payload, field) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      code: 'VALIDATION_FAILED',
      details: [{ field, message: 'appears more than once in its object' }],
    });
  });
});
