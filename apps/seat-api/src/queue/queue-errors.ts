import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import type { QueueRefusal } from '../hold-store';

/** The event's on-sale queue refused a hold: no pass (409, and where to join), or one it does not take (403). */
export function queueRefused(eventId: string, r: QueueRefusal): DomainError {
  if (r.error === 'QUEUE_REQUIRED') {
    return queueRequired(eventId);
  }
  return admissionInvalid(ADMISSION_REFUSALS[r.why]);
}

export function queueRequired(eventId: string): DomainError {
  return new DomainError(
    ErrorCode.QUEUE_REQUIRED,
    'Sales of this event go through its queue: join it, and hold with the admission pass your turn brings (header Queue-Pass)',
    { details: [{ joinQueue: `/v1/events/${eventId}/queue/entries` }] },
  );
}

const ADMISSION_REFUSALS = {
  NOT_ISSUED: 'This admission pass was not issued for you',
  USED: 'Your turn is over: this admission pass takes no more holds',
  EXPIRED: 'This admission pass has expired',
} as const;

export function admissionInvalid(message: string): DomainError {
  return new DomainError(ErrorCode.ADMISSION_INVALID, message);
}

export const queueNotFound = (eventId: string) =>
  new DomainError(ErrorCode.QUEUE_NOT_FOUND, `Event ${eventId} has no queue`);

export const queueEntryNotFound = (entryId: string) =>
  new DomainError(ErrorCode.QUEUE_ENTRY_NOT_FOUND, `Queue entry ${entryId} does not exist`);
