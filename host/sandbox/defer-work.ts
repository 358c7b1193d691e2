// Background work of a sandbox worker (the warm pool's refills, the bundle precompiler's compiles),
// scheduled off the critical path. Owns only the scheduling; never decides whether work is due.

/**
 * Runs `work` after the current I/O (setImmediate) at 0, else after `delayMs` on a timer that does not keep the worker
 * alive.
 */
export function deferWork(work: () => void, delayMs: number): void {
  if (delayMs <= 0) setImmediate(work);
  else setTimeout(work, delayMs).unref();
}
