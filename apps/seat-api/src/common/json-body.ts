import type { FastifyInstance } from 'fastify';
import { DomainError } from './errors/domain-error';
import { ErrorCode } from './errors/error-code';

/**
 * Deepest nesting of arrays and objects a request body may have. Our deepest legitimate body (an event
 * layout: body > sections > section > rows > row) has 5 levels; anything far deeper is an attack on code
 * that walks values recursively (4 KB of `[[[[…]]]]` once ended in a RangeError and a 500).
 */
export const MAX_JSON_DEPTH = 32;

export interface JsonBodyProblem {
  /** dotted path, as validation errors name fields (`sections.0.rows`); `body` for the whole body */
  field: string;
  message: string;
}

interface Frame {
  /** keys seen so far, for an object; null for an array */
  keys: Set<string> | null;
  path: string;
  /** the object member or array element being read */
  member: string;
  index: number;
  expectKey: boolean;
}

const join = (path: string, member: string) => (path ? `${path}.${member}` : member);

/**
 * Finds what JSON.parse accepts but we refuse, in one iterative pass over text already known to be valid
 * JSON (so no recursion, whatever the depth):
 * - nesting deeper than `maxDepth`;
 * - a key repeated in one object (after unescaping: `"a"` and `"\u0061"` are one key). JSON leaves the
 *   meaning of a repeated key open (RFC 8259 §4); JSON.parse keeps the last, other parsers the first, so a
 *   proxy or a log could read another request than we act on. We refuse it rather than pick one.
 */
export function inspectJsonText(text: string, maxDepth = MAX_JSON_DEPTH): JsonBodyProblem | null {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      let j = i + 1;
      let escaped = false;
      for (let d = text.charCodeAt(j); d !== 0x22; d = text.charCodeAt(j)) {
        if (d === 0x5c /* \ */) {
          escaped = true;
          j += 2;
        } else {
          j++;
        }
      }
      if (top?.keys && top.expectKey) {
        const key = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : text.slice(i + 1, j);
        if (top.keys.has(key)) {
          return { field: join(top.path, key), message: 'appears more than once in its object' };
        }
        top.keys.add(key);
        top.member = key;
        top.expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const path = top ? join(top.path, top.keys ? top.member : String(top.index)) : '';
      if (stack.length >= maxDepth) {
        return { field: path || 'body', message: `nests arrays/objects deeper than ${maxDepth} levels` };
      }
      const isObject = c === 0x7b;
      stack.push({ keys: isObject ? new Set() : null, path, member: '', index: 0, expectKey: isObject });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */ && top) {
      if (top.keys) {
        top.expectKey = true;
      } else {
        top.index++;
      }
    }
    i++;
  }
  return null;
}

/**
 * Replaces Fastify's JSON parser with the same parser (same prototype-poisoning protection, body limit
 * and errors for malformed or empty bodies) followed by `inspectJsonText`: a body nested too deep or with
 * a repeated key is refused with 400 VALIDATION_FAILED before any of our code walks it.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    void parse(req, body as string, (err: Error | null, value?: unknown) => {
      if (err) {
        done(err, undefined);
        return;
      }
      const problem = inspectJsonText(body as string);
      if (problem) {
        done(
          new DomainError(ErrorCode.VALIDATION_FAILED, `The JSON body ${problem.message}`, {
            details: [problem],
          }),
          undefined,
        );
        return;
      }
      done(null, value);
    });
  });
}
