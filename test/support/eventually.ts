/** Polls until the condition holds, or fails naming it: a real wait with a deadline, never a fixed sleep. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`${what} not met within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
