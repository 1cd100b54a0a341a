import { inspectJsonText, MAX_JSON_DEPTH } from './json-body';

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
