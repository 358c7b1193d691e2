// How long a queue on a shared store (webhooks, tasks, owed events) waits before it looks for work
// no host announced: lost announcements and lapsed leases. A constant and its test hook; the
// announcements themselves are wired where each queue is (step-webhooks.ts, step-dispatch.ts).

import type { HostOptions } from '../config/options.ts';

/** Announcements bring other hosts' work within milliseconds: this look is only the safety net. */
export const SHARED_QUEUE_POLL_MS = 5_000;

export const sharedQueuePollMs = (options: HostOptions): number =>
  options.testHooks.sharedQueuePollMs ?? SHARED_QUEUE_POLL_MS;
