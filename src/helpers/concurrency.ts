/** The one bounded-concurrency loop of the product. */

/**
 * Runs `work` over `items` with at most `limit` in flight, each called with its item and position;
 * stops taking items once `signal` is aborted (its reason is thrown). Rejects with the first failure.
 */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, position: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, async () => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const position = next++;
      await work(items[position]!, position);
    }
  });
  await Promise.all(workers);
}
