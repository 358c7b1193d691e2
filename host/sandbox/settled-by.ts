// Waits for a promise, but not past a moment on performance.now()'s clock: whether it settled by
// then; and waits for a moment itself. Never rejects and never keeps the process alive for the wait
// (its timers are unref'd).

/** True once `work` settles (either way) before `at`; false when `at` comes first. */
export function settledBy(work: Promise<unknown>, at: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, at - performance.now()));
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(done, done);
  });
}

/** Resolves at `at` on performance.now()'s clock (at once if it has passed), never keeping the process alive. */
export function untilMoment(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())).unref());
}
