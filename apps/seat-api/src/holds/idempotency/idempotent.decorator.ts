import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** The route honours `Idempotency-Key` (see IdempotencyInterceptor), and says so in the OpenAPI document. */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1-128 chars of letters, digits, . _ : - ; the same key and request replay the first answer for 24 h',
    }),
  );
