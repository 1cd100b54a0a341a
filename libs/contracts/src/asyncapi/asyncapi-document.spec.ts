import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { asyncApiDocument, SEAT_STATUS_TYPES } from '@app/contracts';
import { ASYNCAPI_FILE, asyncApiYaml } from './write-asyncapi';

it('docs/asyncapi.yaml is the document the contracts build (npm run asyncapi writes it)', () => {
  expect(readFileSync(ASYNCAPI_FILE, 'utf8')).toBe(asyncApiYaml());
  expect(parse(readFileSync(ASYNCAPI_FILE, 'utf8'))).toEqual(asyncApiDocument());
});

it('is AsyncAPI 3 with both topics, every reference resolving, and a schema that compiles for each type', () => {
  const doc = asyncApiDocument() as any;
  expect(doc.asyncapi).toBe('3.0.0');
  expect(doc.channels.seatStatus.address).toBe('seat.status');
  expect(doc.channels.seatExpired.address).toBe('seat.expired');
  expect(Object.keys(doc.channels.seatStatus.messages).sort()).toEqual([...SEAT_STATUS_TYPES].sort());
  expect(Object.keys(doc.channels.seatExpired.messages).sort()).toEqual(['SeatExpired']);
  const resolve = (ref: string) =>
    ref
      .slice(2)
      .split('/')
      .reduce((node, key) => node?.[key], doc);
  const refs: string[] = [];
  JSON.stringify(doc, (key, value) => (key === '$ref' ? (refs.push(value), value) : value));
  expect(refs.length).toBeGreaterThan(0);
  for (const ref of refs) {
    expect([ref, resolve(ref)]).toEqual([ref, expect.anything()]);
  }
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  for (const type of SEAT_STATUS_TYPES) {
    expect(() => ajv.compile(resolve(doc.components.messages[type].payload.$ref))).not.toThrow();
  }
});
