import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';

/** The seat map's refusals, each code meaning one thing (rendered by the one error filter). */

export function sectionNotFound(section: string): DomainError {
  return new DomainError(ErrorCode.SECTION_NOT_FOUND, `This event has no section ${section}`);
}

/**
 * SEAT_MAP_MAX_STREAMS streams are open on this instance, or the streams' memory budget is used: another
 * instance, or this one a bit later.
 */
export function tooManyStreams(): DomainError {
  return new DomainError(
    ErrorCode.TOO_MANY_STREAMS,
    'Too many seat-map streams are open here; try again shortly (or read the map with GET)',
  );
}

/** The caller has SEAT_MAP_MAX_STREAMS_PER_CALLER streams open here: one of them has to close first. */
export function streamLimitExceeded(limit: number): DomainError {
  return new DomainError(
    ErrorCode.STREAM_LIMIT_EXCEEDED,
    `You have ${limit} seat-map streams open; close one (or read the map with GET)`,
  );
}

export function badLastEventId(): DomainError {
  return new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is not valid', {
    details: [{ field: 'Last-Event-ID', message: 'must be an event id the stream sent' }],
  });
}
