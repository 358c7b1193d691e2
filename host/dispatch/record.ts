// Wraps one sandbox dispatch so that it lands in the event log whatever happens: the integration's
// status, or the host's error code when the sandbox failed (timeout, crash, bad response). It
// never changes the outcome: the result or the error is passed on as is.

import { isHostError } from '../common/errors.ts';
import { currentRequestId } from '../common/request-context.ts';
import type { EventLog } from './event-log.ts';

export interface DispatchRecordMeta {
  eventId: string;
  integration: string;
  installationId: string;
  type: string;
}

interface Outcome {
  response: { status: number };
  durationMs: number;
  logs: { level: string; text: string }[];
}

/** Told about every dispatch once it settled: its status and wall-clock duration (the metrics). */
export type DispatchObserver = (event: { integration: string; type: string; status: number; durationMs: number }) => void;

export async function recordDispatch<T extends Outcome>(eventLog: EventLog, now: () => number, meta: DispatchRecordMeta, run: () => Promise<T>, observe?: DispatchObserver): Promise<T> {
  const started = performance.now();
  // Read when the dispatch starts: the request that caused it (setup events run after its answer).
  const requestId = currentRequestId();
  const write = (entry: { status: number; errorCode?: string; durationMs: number; logs: Outcome['logs'] }) => {
    try {
      // Shaped as the store returns it (whole milliseconds, absent fields absent), so a live
      // follower of the log sees exactly what GET …/events/:eventId answers later.
      eventLog.record({
        ...meta,
        status: entry.status,
        ...(entry.errorCode !== undefined ? { errorCode: entry.errorCode } : {}),
        durationMs: Math.round(entry.durationMs),
        logs: entry.logs,
        createdAt: new Date(now()).toISOString(),
        ...(requestId !== undefined ? { requestId } : {}),
      });
    } catch {
      // The log is a diagnostic: a full disk must not turn a good answer into a failure.
    }
    observe?.({ integration: meta.integration, type: meta.type, status: entry.status, durationMs: performance.now() - started });
  };
  try {
    const outcome = await run();
    write({ status: outcome.response.status, durationMs: outcome.durationMs, logs: outcome.logs });
    return outcome;
  } catch (error) {
    // The supervisor attaches the lines captured before the failure to its error, and the
    // worker's own measure of the dispatch when the worker answered (a crash has none).
    const { logs, durationMs } = (error ?? {}) as { logs?: Outcome['logs']; durationMs?: unknown };
    write({
      status: isHostError(error) ? error.status : 500,
      errorCode: isHostError(error) ? error.code : 'ERR_INTERNAL',
      durationMs: typeof durationMs === 'number' && Number.isFinite(durationMs) ? durationMs : performance.now() - started,
      logs: Array.isArray(logs) ? logs : [],
    });
    throw error;
  }
}
