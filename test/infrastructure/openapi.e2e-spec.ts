/**
 * The served OpenAPI document: what a client generator needs, checked on the JSON
 * the running app serves at /docs-json.
 *   - operation ids are the controller methods' names, and unique;
 *   - every error answer (4xx/5xx) of every route lists its codes as an `enum` on `code` (the health
 *     probe's 503 is Terminus's per-dependency report instead, with no `code`);
 *   - 429 and 503 answers document the Retry-After header;
 *   - every 200/201 answer has a schema;
 *   - class-validator bounds appear in the DTO schemas (the @nestjs/swagger plugin's class-validator shim),
 *     and doc comments become descriptions (introspectComments);
 *   - every operation has a description beyond its summary, its tags are declared;
 *   - Spectral's `oas` ruleset (what an API linter or a portal runs on it) finds nothing.
 */
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { Spectral } from '@stoplight/spectral-core';
import type { RulesetDefinition } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { Api, startApi } from '@test/support/seat-api';

interface Schema {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  maxItems?: number;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  description?: string;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}
interface Response {
  description?: string;
  headers?: Record<string, { schema?: Schema }>;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  responses: Record<string, Response>;
}
interface Doc {
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

let api: Api;
let doc: Doc;
/** Every documented operation: `GET /v1/holds/{holdId}` → its operation. */
let operations: [string, Operation][];

beforeAll(async () => {
  api = await startApi();
  const r = await api.call('GET', '/docs-json');
  expect(r.status).toBe(200);
  doc = r.body as Doc;
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      op,
    ]),
  );
});
afterAll(() => api?.close());

/** A schema with its `$ref`s and `allOf`s resolved, properties merged (enough for the envelope). */
function resolve(schema: Schema | undefined): Schema {
  if (!schema) {
    return {};
  }
  if (schema.$ref) {
    return resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  }
  if (schema.allOf) {
    const parts = schema.allOf.map(resolve);
    return {
      ...Object.assign({}, ...parts),
      properties: Object.assign({}, ...parts.map((p) => p.properties)),
    };
  }
  return schema;
}

const jsonSchema = (r: Response) => resolve(r.content?.['application/json']?.schema);

it('documents the API routes under /v1, the probes and the pass keys unversioned', () => {
  const paths = Object.keys(doc.paths);
  expect(paths).toEqual(
    expect.arrayContaining(['/v1/events', '/v1/holds/{holdId}', '/health', '/health/live']),
  );
  expect(paths.filter((p) => !p.startsWith('/v1/') && !p.startsWith('/health'))).toEqual([
    '/.well-known/jwks.json',
  ]);
});

it('names every operation after its controller method, uniquely', () => {
  // the app's own routes, from Nest's metadata: handler name by `METHOD path`
  const discovery = api.app.get(DiscoveryService);
  const scanner = api.app.get(MetadataScanner);
  const handlers = new Map<string, string>();
  for (const wrapper of discovery.getControllers()) {
    const proto = Object.getPrototypeOf(wrapper.instance) as object;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = (proto as Record<string, () => unknown>)[name];
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method !== undefined) {
        handlers.set(name, RequestMethod[method]);
      }
    }
  }
  const ids = operations.map(([, op]) => op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const [route, op] of operations) {
    expect({ route, known: handlers.has(op.operationId ?? '') }).toEqual({ route, known: true });
    expect(route.startsWith(`${handlers.get(op.operationId!)} `)).toBe(true);
  }
});

it('lists the codes of every error answer as an enum', () => {
  const missing: string[] = [];
  for (const [route, op] of operations) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) < 400) {
        continue;
      }
      const schema = jsonSchema(response);
      if (route === 'GET /health' && status === '503') {
        // Terminus's report: which dependency is down (monitors read that shape, see ErrorEnvelopeFilter)
        expect(schema.properties).toHaveProperty('details');
        continue;
      }
      const codes = schema.properties?.code?.enum;
      if (
        !Array.isArray(codes) ||
        codes.length === 0 ||
        !codes.every((c) => /^[A-Z][A-Z_]+$/.test(String(c)))
      ) {
        missing.push(`${route} ${status}`);
      }
    }
  }
  expect(missing).toEqual([]);
});

it('documents the codes clients act on where they happen', () => {
  const codes = (route: string, status: string) =>
    jsonSchema(operations.find(([r]) => r === route)![1].responses[status]).properties?.code?.enum;
  expect(codes('POST /v1/events/{eventId}/holds', '409')).toEqual(
    expect.arrayContaining(['SEATS_UNAVAILABLE', 'IDEMPOTENCY_IN_PROGRESS']),
  );
  expect(codes('POST /v1/events/{eventId}/holds', '429')).toEqual(['RATE_LIMITED']);
  expect(codes('POST /v1/events/{eventId}/holds', '503')).toEqual(
    expect.arrayContaining(['BUSY', 'DEPENDENCY_UNAVAILABLE', 'REPLICAS_UNAVAILABLE']),
  );
  expect(codes('POST /v1/holds/{holdId}/confirm', '503')).toEqual(
    expect.arrayContaining(['BUSY', 'BOOKING_UNAVAILABLE']),
  );
  expect(codes('GET /v1/holds/{holdId}', '401')).toEqual(['UNAUTHORIZED']);
  expect(codes('GET /v1/events/{eventId}/seats/stream', '503')).toEqual(
    expect.arrayContaining(['TOO_MANY_STREAMS']),
  );
});

it('documents Retry-After on every 429 and 503', () => {
  const missing: string[] = [];
  for (const [route, op] of operations) {
    for (const status of ['429', '503']) {
      const response = op.responses[status];
      if (response && route !== 'GET /health' && !response.headers?.['Retry-After']?.schema) {
        missing.push(`${route} ${status}`);
      }
    }
  }
  expect(missing).toEqual([]);
});

it('gives every 200 and 201 answer a schema', () => {
  const missing: string[] = [];
  for (const [route, op] of operations) {
    for (const status of ['200', '201']) {
      const response = op.responses[status];
      const schemas = Object.values(response?.content ?? {}).map((c) => c.schema);
      if (response && (schemas.length === 0 || schemas.some((s) => !s))) {
        missing.push(`${route} ${status}`);
      }
    }
  }
  expect(missing).toEqual([]);
  const list = operations.find(([r]) => r === 'GET /v1/events/{eventId}/expirations')![1];
  expect(jsonSchema(list.responses['200']).properties).toHaveProperty('items');
});

it('shows class-validator bounds and formats in the request schemas', () => {
  const schemas = doc.components.schemas;
  expect(schemas.CreateHoldDto.properties?.seatIds).toMatchObject({ minItems: 1, maxItems: 1000 });
  expect(schemas.CreateHoldDto.properties?.ttlSeconds).toMatchObject({ minimum: 1, maximum: 86400 });
  expect(schemas.ExtendHoldDto.properties?.ttlSeconds).toMatchObject({
    type: 'integer',
    minimum: 1,
    maximum: 86400,
  });
  expect(schemas.ConfirmHoldDto.properties?.orderId).toMatchObject({ pattern: '^[A-Za-z0-9._:-]{1,100}$' });
  expect(schemas.CreateEventDto.properties?.startsAt).toMatchObject({ format: 'date-time' });
  expect(schemas.CreateEventDto.properties?.name).toMatchObject({ minLength: 1, maxLength: 200 });
});

it('gives every operation a description that adds to its summary, and declares exactly the tags used', () => {
  const same = operations
    .filter(([, op]) => !op.description || op.description === op.summary)
    .map(([route]) => route);
  expect(same).toEqual([]);
  const used = new Set(operations.flatMap(([, op]) => op.tags ?? []));
  expect((doc.tags ?? []).map((t) => t.name).sort()).toEqual([...used].sort());
  expect(doc.tags!.every((t) => t.description)).toBe(true);
});

it("passes Spectral's oas ruleset without a warning", async () => {
  // the ruleset's recommended rules, as `spectral lint` runs them; everything is local (no $ref leaves the
  // document), so no network is needed
  const spectral = new Spectral();
  spectral.setRuleset(oas as RulesetDefinition);
  const results = await spectral.run(doc as unknown as Record<string, unknown>);
  const findings = results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
  expect(findings).toEqual([]);
});
