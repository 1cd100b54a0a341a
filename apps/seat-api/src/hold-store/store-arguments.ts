/**
 * The scripts store times as whole milliseconds and compare them as written (a hold's expireAt against
 * its due-index score, its lifetime cap against a new expiry): a fraction or NaN would be written as one
 * spelling in one place and another in the next, leaving a hold half-swept. So the store refuses such a
 * number before it writes anything: a programming error of the caller, never a client's (the API
 * validates its input to whole seconds long before this).
 */
export function assertWholeNumbers(what: string, args: Record<string, number>, min: number): void {
  for (const [name, value] of Object.entries(args)) {
    if (!Number.isSafeInteger(value) || value < min) {
      throw new RangeError(`${what}: ${name} must be a whole number >= ${min}, got ${value}`);
    }
  }
}
