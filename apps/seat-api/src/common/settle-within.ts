/**
 * Waits for `work` to settle (success or failure alike), but no longer than `ms`: shutdown lets a
 * running sweep or relay batch finish, without letting a hung Kafka call hold the process forever.
 */
export async function settleWithin(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!work) {
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
