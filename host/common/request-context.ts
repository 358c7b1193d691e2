// The HTTP request a piece of work belongs to, carried across awaits with AsyncLocalStorage: the
// request log sets it, the event log reads it (an entry's `requestId`), so a client's
// `x-request-id` leads to the dispatches it caused, later setup events included. Holds an id only.

import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts) as part of the request `requestId`. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return storage.run(requestId, work);
}

/** Runs `work` (and everything it starts) as part of no request, whatever the caller belongs to. */
export function withoutRequestId<T>(work: () => T): T {
  return storage.exit(work);
}

/** The id of the HTTP request the current work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore();
}
