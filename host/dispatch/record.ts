// Wraps one sandbox dispatch so that it lands in the event log whatever happens: the integration's
// status, or the host's error code when the sandbox failed (timeout, crash, bad response). It
// never changes the outcome: the result or the error is passed on as is.

import { isHostError } from '../common/errors.ts';
import { currentRequestId } from '../common/request-context.ts';
import type { EventLog, EventLogEntry } from './event-log.ts';

export interface DispatchRecordMeta {
  eventId: string;
  integration: string;
  installationId: string;
  type: string;
  /** The published version handed the dispatch (absent for a folder's integration). */
  version?: number;
}

interface Outcome {
  response: { status: number };
  durationMs: number;
  logs: { level: string; text: string }[];
}

/** Told about every dispatch once it settled: its status and wall-clock duration (the metrics). */
export type DispatchObserver = (event: {
  integration: string;
  type: string;
  status: number;
  durationMs: number;
}) => void;

export async function recordDispatch<T extends Outcome>(
  eventLog: EventLog,
  now: () => number,
  meta: DispatchRecordMeta,
  run: () => Promise<T>,
  observe?: DispatchObserver,
): Promise<T> {
  const started = performance.now();
  // Read when the dispatch starts: the request that caused it (setup events run after its answer).
  const requestId = currentRequestId();
  // Shaped as the store returns it (whole milliseconds, absent fields absent), so a live follower
  // of the log sees exactly what GET …/events/:eventId answers later.
  const entryOf = (
    fields: { status: number; errorCode?: string; durationMs: number; logs: Outcome['logs'] },
    createdAt = now(),
  ): EventLogEntry => ({
    ...meta,
    status: fields.status,
    ...(fields.errorCode !== undefined ? { errorCode: fields.errorCode } : {}),
    durationMs: Math.round(fields.durationMs),
    logs: fields.logs,
    createdAt: new Date(createdAt).toISOString(),
    ...(requestId !== undefined ? { requestId } : {}),
  });
  const write = (entry: EventLogEntry) => {
    try {
      eventLog.record(entry);
    } catch {
      // The log is a diagnostic: a full disk must not turn a good answer into a failure.
    }
  };
  const observed = (status: number) =>
    observe?.({ integration: meta.integration, type: meta.type, status, durationMs: performance.now() - started });
  try {
    const outcome = await run();
    write(entryOf({ status: outcome.response.status, durationMs: outcome.durationMs, logs: outcome.logs }));
    observed(outcome.response.status);
    return outcome;
  } catch (error) {
    const status = isHostError(error) ? error.status : 500;
    const errorCode = isHostError(error) ? error.code : 'ERR_INTERNAL';
    const elapsed = performance.now() - started;
    // The supervisor attaches the lines captured before the failure to its error, and the
    // worker's own measure of the dispatch when the worker answered (a crash has none). When the
    // host answered at the deadline before the worker (supervisor.ts answerAtDeadline), both come
    // later with `verdict`: the row waits for them, and reads of the log wait for the row.
    const { logs, durationMs, verdict } = (error ?? {}) as {
      logs?: Outcome['logs'];
      durationMs?: unknown;
      verdict?: Promise<{ logs: Outcome['logs']; durationMs?: number }>;
    };
    const fields = (details: { logs?: Outcome['logs']; durationMs?: unknown }) => ({
      status,
      errorCode,
      durationMs:
        typeof details.durationMs === 'number' && Number.isFinite(details.durationMs) ? details.durationMs : elapsed,
      logs: Array.isArray(details.logs) ? details.logs : [],
    });
    if (verdict instanceof Promise) {
      // Stamped now, when the caller got its answer, not when the verdict arrives.
      const answeredAt = now();
      const row = verdict.then((details) => entryOf(fields(details), answeredAt));
      if (eventLog.recordLater !== undefined) eventLog.recordLater(meta.integration, row);
      else void row.then(write);
    } else {
      write(entryOf(fields({ logs, durationMs })));
    }
    observed(status);
    throw error;
  }
}
