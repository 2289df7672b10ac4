/**
 * Promise.all that waits for every promise to settle before it throws the first failure (in
 * the order given), so that no download or write outlives the step that started it.
 */
export async function settleAll<T extends readonly unknown[] | []>(
  values: T,
): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled<readonly unknown[]>(values);
  const fulfilled: unknown[] = [];
  for (const outcome of settled) {
    if (outcome.status === 'rejected') throw outcome.reason;
    fulfilled.push(outcome.value);
  }
  return fulfilled as { -readonly [P in keyof T]: Awaited<T[P]> };
}
