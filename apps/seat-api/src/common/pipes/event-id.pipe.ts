import { PipeTransform } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { ErrorCode } from '../errors/error-code';

/** A version-4 UUID in either letter case (event ids are `randomUUID()`s). */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * The one spelling of an event id inside the service: lower case, as PostgreSQL prints a uuid and as
 * `randomUUID()` makes it; null for anything that is not a v4 UUID.
 *
 * Why canonicalise rather than refuse upper case: RFC 9562 makes UUIDs case-insensitive on input, and
 * clients copy ids from tools that print them in upper case. What must not happen is what did: the id as
 * typed became lock keys, Redis keys, registry and cache entries, so two spellings were two events (two
 * customers got 201 for one seat) and 150 spellings cached one event 150 times. Every layer behind the
 * edge therefore sees only the canonical form.
 */
export function canonicalEventId(value: unknown): string | null {
  return typeof value === 'string' && UUID_V4.test(value) ? value.toLowerCase() : null;
}

/** Path parameter `eventId`: refused with 400 naming it unless a v4 UUID; passed on in lower case. */
export class EventIdPipe implements PipeTransform<unknown, string> {
  constructor(private readonly field = 'eventId') {}

  transform(value: unknown): string {
    const id = canonicalEventId(value);
    if (id === null) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, `${this.field} must be a UUID`, {
        details: [{ field: this.field, message: 'must be a UUID' }],
      });
    }
    return id;
  }
}

export const eventIdPipe = new EventIdPipe();
