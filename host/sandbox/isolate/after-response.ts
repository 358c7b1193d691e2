// The integration's work after a response was answered: waitUntil work drained in the isolate, and
// a body that follows the answer, each under its own deadline. It never answers a dispatch; past a
// deadline it resets the isolate through `dispose`.

import type { StreamedBody } from '../../../sandbox-api/runtime/contract.ts';
import type { SandboxLimits } from '../messages.ts';
import { hostBodySource, isolateBodySource, responseBody, type ResponseBody } from '../response-body.ts';
import { BODY_KEY_SUFFIX, type InFlight, type IsolateHooks, type Live } from './contract.ts';

/** What that work needs of its isolate. */
export interface ResponseWork {
  /** The isolate's own sets: work after a response is added to and removed from `draining` here. */
  inFlight: ReadonlySet<InFlight>;
  draining: Set<string>;
  limits: SandboxLimits;
  hooks: IsolateHooks;
  /** The isolate's live state now (null while none is live). */
  current(): Live | null;
  dispose(reason: string): void;
  /** Some work ended: the busy window closes if nothing else runs (resetWindowIfIdle). */
  workEnded(): void;
}

/**
 * The body that follows an answer: pulled from the isolate's stream, or from a fetch's body at the
 * host that the integration handed on unread. The integration counts as busy (like waitUntil
 * work: timers run, fetches are allowed) until the body ended; past limits.streamTimeoutMs it is
 * stopped and the isolate reset.
 */
export function followingBody(work: ResponseWork, live: Live, eventId: string, streamed: StreamedBody): ResponseBody {
  const key = `${eventId}${BODY_KEY_SUFFIX}`;
  work.draining.add(key);
  const source =
    streamed.kind === 'fetch'
      ? hostBodySource(live.fetches.take(streamed.id))
      : isolateBodySource(live.isolate, live.pullBody, live.cancelBody, streamed.id, () => work.hooks.entered?.());
  return responseBody({
    ...source,
    maxBytes: work.limits.maxResponseBytes,
    deadlineMs: work.limits.streamTimeoutMs,
    onDeadline: () => {
      work.hooks.lateLog(
        [eventId],
        'error',
        `the response body was still being produced after ${work.limits.streamTimeoutMs} ms: the isolate was reset`,
      );
      if (work.current() === live) work.dispose('response body deadline passed');
    },
    done: () => {
      if (!work.draining.delete(key)) return;
      work.workEnded();
      if (work.draining.size === 0 && work.inFlight.size === 0) work.hooks.onDrained?.();
    },
  });
}

export function drainAfterResponse(work: ResponseWork, live: Live, eventId: string): void {
  work.draining.add(eventId);
  const timer = setTimeout(() => {
    if (!work.draining.has(eventId) || work.current() !== live) return;
    work.hooks.lateLog(
      [eventId],
      'error',
      `waitUntil work still running after ${work.limits.waitUntilTimeoutMs} ms: the isolate was reset`,
    );
    work.dispose('waitUntil deadline passed');
  }, work.limits.waitUntilTimeoutMs);
  const drained = live.drain.apply(undefined, [eventId], { arguments: { copy: true }, result: { promise: true } });
  work.hooks.entered?.();
  drained
    .catch(() => undefined)
    .finally(() => {
      clearTimeout(timer);
      work.draining.delete(eventId);
      work.workEnded();
      if (work.draining.size === 0 && work.inFlight.size === 0) work.hooks.onDrained?.();
    });
}
