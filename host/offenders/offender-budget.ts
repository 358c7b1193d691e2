// What is left of an offenders' dispatch's deadline when the host is about to send it: the host
// keeps that deadline from the request's arrival (supervisor.ts), and what it waited for first
// (the worker's verdict on the previous timeout, a restarting worker) comes out of it. Pure.

/**
 * The budget to send with a dispatch whose deadline is at `deadlineAt` (performance.now() clock),
 * or null when less than half of its `deadlineMs` is left: then it is not sent at all, since a
 * guest cut off after so little of its time would have its timeout counted for the host's wait.
 */
export function sendingBudget(deadlineAt: number, now: number, deadlineMs: number): number | null {
  const left = deadlineAt - now;
  return left >= deadlineMs / 2 ? left : null;
}
