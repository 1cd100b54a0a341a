import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

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

function prototypeNamedFields(value: unknown, parent = ''): string[] {
  if (typeof value !== 'object' || value === null) {
    return [];
  }
  return Object.keys(value).flatMap((key) => {
    const field = parent ? `${parent}.${key}` : key;
    const nested = prototypeNamedFields((value as Record<string, unknown>)[key], field);
    return PROTOTYPE_NAMES.has(key) ? [field, ...nested] : nested;
  });
}

/** Input is validated at the edge: unknown fields are refused, every offending field is named. */
class EdgeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      const refused = prototypeNamedFields(value);
      if (refused.length > 0) {
        throw new ApiError(
          400,
          'VALIDATION_FAILED',
          'The request is not valid',
          refused.map((field) => ({ field, message: `property ${field} should not exist` })),
        );
      }
    }
    return super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new EdgeValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) =>
      new ApiError(400, 'VALIDATION_FAILED', 'The request is not valid', flatten(errors)),
  });
}
