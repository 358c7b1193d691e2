// Runs an async job per item with at most `concurrency` in flight; resolves when all are done.
// A job's rejection rejects the whole pool once the jobs in flight settle (jobs report their own failures).

export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  job: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++];
      await job(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
}
