import { ArgumentMetadata, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { DomainError, ErrorDetail } from './errors/domain-error';
import { ErrorCode } from './errors/error-code';
import { EMPTY_JSON_BODY, EMPTY_JSON_BODY_MESSAGE, MAX_JSON_DEPTH } from './json-body';

function flatten(errors: ValidationError[], parent = ''): { field: string; message: string }[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/**
 * Names no body field of ours may have, refused before class-validator runs because its whitelist
 * misses them: a body field called `toString` or `prototype` passed as "known" and was silently dropped
 * (found by test/holds/rest-fuzz.e2e-spec.ts).
 */
const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * The NUL character, in no string of any request: PostgreSQL text cannot hold it, so one that reached
 * the database would fail there (a 500, or for a staff action a 503 "try again" that can never succeed).
 * No field of ours means anything with it, so it is refused for every string at the edge, not field by
 * field in the DTOs.
 */
const NUL = '\u0000';
const NUL_REFUSED = 'must not contain the NUL character (U+0000)';

/**
 * Whether a NUL is in any string or key of `input`. The answer for nearly every request is no, so this
 * is the cheap pass (no paths are built; nothing is allocated for a string or an array of strings);
 * refusedFields names the fields only when there is something to refuse.
 */
function containsNul(input: unknown): boolean {
  const stack: unknown[] = [input];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes(NUL)) {
        return true;
      }
    } else if (Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === 'string') {
          if (item.includes(NUL)) {
            return true;
          }
        } else if (typeof item === 'object' && item !== null) {
          stack.push(item);
        }
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        if (key.includes(NUL)) {
          return true;
        }
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** A field's name as the envelope shows it: a NUL in a key is written as its escape. */
const shown = (field: string) => field.replaceAll(NUL, '\\u0000');

/**
 * What must be refused before class-transformer and class-validator walk a request's input (both
 * recurse), in one iterative pass with an explicit stack, so no depth can overflow it:
 * - a NUL in any string or key, in the body, the query and the path parameters;
 * - in a body: nesting deeper than MAX_JSON_DEPTH (2,000 nested arrays overflowed the stack: a 500) and
 *   prototype-named fields. The JSON body parser already refuses deep bodies (json-body.ts); this is the
 *   pipe's own guarantee, for any body that reaches it.
 * `root` names the value itself (a path parameter's name; `body` for a body that is one string).
 */
function refusedFields(input: unknown, isBody: boolean, root: string): ErrorDetail[] {
  const refused: ErrorDetail[] = [];
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: input, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) {
        refused.push({ field: shown(path || root), message: NUL_REFUSED });
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) {
      continue;
    }
    if (isBody && depth >= MAX_JSON_DEPTH) {
      return [
        { field: path || 'body', message: `nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels` },
      ];
    }
    for (const key of Object.keys(value)) {
      const field = path ? `${path}.${key}` : key;
      if (key.includes(NUL)) {
        refused.push({ field: shown(field), message: NUL_REFUSED });
      } else if (isBody && PROTOTYPE_NAMES.has(key)) {
        refused.push({ field, message: `property ${field} should not exist` });
      }
      stack.push({ value: (value as Record<string, unknown>)[key], path: field, depth: depth + 1 });
    }
  }
  return refused;
}

/** A DTO's hand-written check of a body: true only for bodies class-validator accepts as they are. */
export type ValidBodyCheck = (body: unknown) => boolean;

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
const validBodyShortcuts = new Map<Function, ValidBodyCheck>();

/**
 * A shortcut past class-transformer and class-validator for a DTO on the hot path: a body `isValid`
 * accepts becomes an instance of `dto` with its fields, as plainToInstance would make it, without the
 * walk over the decorators' metadata (what that saves a hold: docs/adr/0008-hold-path-shortcuts.md).
 * `isValid` must accept only plain bodies class-validator accepts with the pipe's options (only known
 * fields, nothing nested but arrays of primitives or of plain objects with only known fields): a spec next
 * to the DTO compares the two. Every body it
 * does not accept goes the full way, so each refusal keeps its exact error answer.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export function validBodyShortcut(dto: Function, isValid: ValidBodyCheck): void {
  validBodyShortcuts.set(dto, isValid);
}

/**
 * Input is validated at the edge: unknown fields are refused, every offending field is named. The body,
 * the query and the path parameters are each screened first (refusedFields); headers reach no database.
 */
class EdgeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { type } = metadata;
    if (type !== 'body' && type !== 'query' && type !== 'param') {
      return super.transform(value, metadata);
    }
    const isBody = type === 'body';
    if (isBody && value === EMPTY_JSON_BODY) {
      throw new DomainError(ErrorCode.MALFORMED_JSON, EMPTY_JSON_BODY_MESSAGE);
    }
    const isValid = isBody && metadata.metatype && validBodyShortcuts.get(metadata.metatype);
    const shortcut = isValid && isValid(value);
    // the whole walk for a body the shortcut did not take (a shortcut's body has only known fields, also in
    // what it nests: a NUL is all it can still hold); else only when a NUL is there to name
    if ((isBody && !shortcut) || containsNul(value)) {
      const refused = refusedFields(value, isBody, metadata.data ?? (isBody ? 'body' : type));
      if (refused.length > 0) {
        throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is not valid', { details: refused });
      }
    }
    if (shortcut) {
      const Dto = metadata.metatype as new () => object;
      return Object.assign(new Dto(), value);
    }
    return super.transform(value, metadata);
  }
}

/** The pipe's options (exported for the specs that compare a shortcut with class-validator). */
export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  stopAtFirstError: false,
  exceptionFactory: (errors) =>
    new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is not valid', { details: flatten(errors) }),
};

export function createValidationPipe(): ValidationPipe {
  return new EdgeValidationPipe(VALIDATION_OPTIONS);
}
