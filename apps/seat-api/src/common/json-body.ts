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
  /** keys seen so far, for an object (an array while few: a linear scan beats hashing); null for an array */
  keys: string[] | Set<string> | null;
  /** the container this one is a member of, and its key or index there: the path, built only for an error */
  parent: Frame | undefined;
  at: string | number;
  /** the object member or array element being read */
  member: string;
  index: number;
  expectKey: boolean;
}

/** Keys an object keeps in an array before it moves them to a Set. */
const KEYS_IN_ARRAY = 16;

const join = (path: string, member: string) => (path ? `${path}.${member}` : member);

/** The dotted path of a container (`` for the body itself). */
function pathOf(frame: Frame): string {
  const parts: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) {
    parts.push(String(f.at));
  }
  return parts.reverse().join('.');
}

/** Adds `key` to the object's keys; false when it was there already. */
function addKey(frame: Frame & { keys: string[] | Set<string> }, key: string): boolean {
  const keys = frame.keys;
  if (Array.isArray(keys)) {
    if (keys.includes(key)) {
      return false;
    }
    keys.push(key);
    if (keys.length > KEYS_IN_ARRAY) {
      frame.keys = new Set(keys);
    }
    return true;
  }
  if (keys.has(key)) {
    return false;
  }
  keys.add(key);
  return true;
}

/**
 * Finds what JSON.parse accepts but we refuse, in one iterative pass over text already known to be valid
 * JSON (so no recursion, whatever the depth):
 * - nesting deeper than `maxDepth`;
 * - a key repeated in one object (after unescaping: `"a"` and `"\u0061"` are one key). JSON leaves the
 *   meaning of a repeated key open (RFC 8259 §4); JSON.parse keeps the last, other parsers the first, so a
 *   proxy or a log could read another request than we act on. We refuse it rather than pick one.
 * Paths are put together only for a problem found: a body without one (every hold request) allocates a
 * frame per container and its keys, nothing more.
 */
export function inspectJsonText(text: string, maxDepth = MAX_JSON_DEPTH): JsonBodyProblem | null {
  let top: Frame | undefined;
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
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
        if (!addKey(top as Frame & { keys: string[] | Set<string> }, key)) {
          return { field: join(pathOf(top), key), message: 'appears more than once in its object' };
        }
        top.member = key;
        top.expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const at = top ? (top.keys ? top.member : top.index) : '';
      if (depth >= maxDepth) {
        const path = top ? join(pathOf(top), String(at)) : '';
        return { field: path || 'body', message: `nests arrays/objects deeper than ${maxDepth} levels` };
      }
      const isObject = c === 0x7b;
      top = { keys: isObject ? [] : null, parent: top, at, member: '', index: 0, expectKey: isObject };
      depth++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      top = top?.parent;
      depth--;
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
 * The body of a request that declared `Content-Type: application/json` and sent nothing. Many HTTP
 * clients set that header on every request, a DELETE too, so the parser cannot refuse it: only the route
 * knows whether it takes a body. A route that takes none never looks; the validation pipe refuses it for
 * one that does, with 400 MALFORMED_JSON and the parser's own words (common/validation.ts). A symbol, so
 * it is never taken for data.
 */
export const EMPTY_JSON_BODY: unique symbol = Symbol('empty JSON body');

/** The refusal of an empty body where the route takes one: the parser's own words. */
export const EMPTY_JSON_BODY_MESSAGE = "Body cannot be empty when content-type is set to 'application/json'";

/**
 * Replaces Fastify's JSON parser with the same parser (same prototype-poisoning protection, body limit
 * and errors for malformed bodies) followed by `inspectJsonText`: a body nested too deep or with a
 * repeated key is refused with 400 VALIDATION_FAILED before any of our code walks it. An empty body is
 * passed on as EMPTY_JSON_BODY.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') {
      done(null, EMPTY_JSON_BODY);
      return;
    }
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
