import { ApiHeader } from '@nestjs/swagger';

/**
 * Documents `Idempotency-Key` on a route whose handler runs its work through IdempotentRequests.run
 * (idempotent-requests.ts); the decorator itself changes nothing at run time.
 */
export const ApiIdempotencyKey = () =>
  ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '1-128 chars of letters, digits, . _ : - ; the same key and request replay the first answer for 24 h',
  });
