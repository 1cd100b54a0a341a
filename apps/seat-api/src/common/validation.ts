import { ArgumentMetadata, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { DomainError, ErrorDetail } from './errors/domain-error';
import { ErrorCode } from './errors/error-code';
import { MAX_JSON_DEPTH } from './json-body';

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
 * What must be refused before class-transformer and class-validator walk the body (both recurse): nesting
 * deeper than MAX_JSON_DEPTH (2,000 nested arrays overflowed the stack: a 500) and prototype-named fields.
 * The JSON body parser already refuses deep bodies (json-body.ts); this is the pipe's own guarantee, for
 * any body that reaches it. Iterative, with an explicit stack, so no depth can overflow it.
 */
function refusedFields(body: unknown): ErrorDetail[] {
  const refused: ErrorDetail[] = [];
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) {
      continue;
    }
    if (depth >= MAX_JSON_DEPTH) {
      return [
        { field: path || 'body', message: `nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels` },
      ];
    }
    for (const key of Object.keys(value)) {
      const field = path ? `${path}.${key}` : key;
      if (PROTOTYPE_NAMES.has(key)) {
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
 * fields, nothing nested but arrays of primitives): a spec next to the DTO compares the two. Every body it
 * does not accept goes the full way, so each refusal keeps its exact error answer.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export function validBodyShortcut(dto: Function, isValid: ValidBodyCheck): void {
  validBodyShortcuts.set(dto, isValid);
}

/** Input is validated at the edge: unknown fields are refused, every offending field is named. */
class EdgeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      const isValid = metadata.metatype && validBodyShortcuts.get(metadata.metatype);
      if (isValid && isValid(value)) {
        const Dto = metadata.metatype as new () => object;
        return Object.assign(new Dto(), value);
      }
      const refused = refusedFields(value);
      if (refused.length > 0) {
        throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is not valid', { details: refused });
      }
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
