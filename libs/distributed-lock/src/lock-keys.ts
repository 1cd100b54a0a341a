import { InvalidLockKeyError } from './errors';

/**
 * Lock keys and their fencing counters. The hash tag (`{...}`, as Redis Cluster defines it) groups keys:
 * a multi-key lock must share one tag (one slot, one atomic script), and its fencing counter is the
 * tag's, so every acquisition of any key with that tag draws from one increasing sequence (it restarts
 * at 1 if Redis loses the counter: see HeldLock.fencingToken).
 * A key without a tag is its own tag.
 */
const BAD_PART = /(^|[:{}])(undefined|null|NaN|\[object Object\])($|[:{}])/;
/** Whether BAD_PART could match at all: plain substring scans, far cheaper than the regex on every key. */
const mayHaveBadPart = (key: string) =>
  key.includes('undefined') || key.includes('null') || key.includes('NaN') || key.includes('[object ');

export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) {
      return key.slice(open + 1, close);
    }
  }
  return key;
}

/** Validates and de-duplicates what a key function returned; sorted so callers lock in one order. */
export function normalizeKeys(raw: string | readonly string[]): string[] {
  const list = typeof raw === 'string' ? [raw] : [...raw];
  if (list.length === 0) {
    throw new InvalidLockKeyError('a lock needs at least one key');
  }
  for (const key of list) {
    if (typeof key !== 'string' || key.length === 0) {
      throw new InvalidLockKeyError(`lock key must be a non-empty string, got ${String(key)}`);
    }
    if (mayHaveBadPart(key) && (BAD_PART.test(key) || key.includes('[object '))) {
      throw new InvalidLockKeyError(
        `lock key "${key}" contains an undefined/null/object part: check the key function`,
      );
    }
  }
  // callers usually pass their keys sorted already (the seat lock does): then no set and no sort
  const keys = isStrictlyAscending(list) ? list : [...new Set(list)].sort();
  const tag = hashTag(keys[0]);
  if (keys.length > 1 && keys.some((k) => hashTag(k) !== tag || tag === k)) {
    throw new InvalidLockKeyError(
      `keys locked together must share one hash tag like "seat:{event-1}:A1", got ${keys.join(', ')}`,
    );
  }
  return keys;
}

/** Sorted as Array#sort sorts strings (UTF-16 code units), without duplicates. */
function isStrictlyAscending(list: readonly string[]): boolean {
  for (let i = 1; i < list.length; i++) {
    if (!(list[i - 1] < list[i])) {
      return false;
    }
  }
  return true;
}

export function lockKey(prefix: string, key: string): string {
  // an untagged key becomes its own tag, so its lock and fence keys share a slot
  return hashTag(key) === key ? `${prefix}{${key}}` : `${prefix}${key}`;
}

export function fenceKey(prefix: string, key: string): string {
  return `${prefix}fence:{${hashTag(key)}}`;
}
