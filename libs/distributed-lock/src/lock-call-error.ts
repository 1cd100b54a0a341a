import { LockBackendError, LockOutcomeUnknownError } from './errors';

/**
 * Wraps a failed Redis call. A reply error means Redis answered (the script did not take effect); a call
 * refused before it was written never left the client. Anything else may have reached Redis.
 */
export function lockCallError(
  operation: 'acquire' | 'extend' | 'release',
  keys: readonly string[],
  e: unknown,
): LockBackendError {
  const err = e as Error;
  const message = `could not reach Redis to ${operation} ${keys.join(', ')}: ${err?.message}`;
  return outcomeUnknown(e)
    ? new LockOutcomeUnknownError(operation, message, { cause: e })
    : new LockBackendError(message, { cause: e });
}

export function outcomeUnknown(e: unknown): boolean {
  const err = e as Error;
  return !(err?.name === 'ReplyError' || /Stream isn't writeable/.test(err?.message ?? ''));
}
