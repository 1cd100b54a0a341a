import { ApiError } from '../common/api-error';

/** The seat map's refusals, each code meaning one thing (rendered by the one error filter). */

export function sectionNotFound(section: string): ApiError {
  return new ApiError(404, 'SECTION_NOT_FOUND', `This event has no section ${section}`);
}

/** SEAT_MAP_MAX_STREAMS streams are open on this instance: another instance, or this one a bit later. */
export function tooManyStreams(): ApiError {
  return new ApiError(
    503,
    'TOO_MANY_STREAMS',
    'Too many seat-map streams are open here; try again shortly (or read the map with GET)',
    undefined,
    { 'retry-after': '5' },
  );
}

export function badLastEventId(): ApiError {
  return new ApiError(400, 'VALIDATION_FAILED', 'The request is not valid', [
    { field: 'Last-Event-ID', message: 'must be a version: a whole number' },
  ]);
}
