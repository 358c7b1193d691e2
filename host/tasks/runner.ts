// Runs queued integration tasks as `task` events (docs/platform-api.md#tasks): claims due tasks from
// the store under a lease, dispatches each to its integration (no installation: the integration's
// own environment), and settles it: a 2xx answer succeeds; a 5xx or a failed dispatch is retried
// later (6× the previous delay) until its attempts run out; a 4xx or "no handler" fails at once.
// Every attempt is in the integration's event log; retries and failures in the host log.

import { isHostError } from '../common/errors.ts';
import { createLeaseLoop, retryDelayMs } from '../common/lease-loop.ts';
import type { Logger } from '../common/logger.ts';
import type { DispatchOutcome } from '../dispatch/event-dispatcher.ts';
import type { TaskLimits, TaskRecord, TaskStore } from './model.ts';

export interface TaskRunnerDeps {
  store: TaskStore;
  limits: TaskLimits;
  /** Dispatches one `task` event to the integration itself. */
  dispatch(
    integration: string,
    event: { type: 'task'; eventId: string; task: Record<string, unknown> },
  ): Promise<DispatchOutcome>;
  now(): number;
  log: Logger;
  /** How long a claimed task is presumed in progress (beyond the dispatch deadline and waitUntil work). */
  leaseMs: number;
  /**
   * The longest sleep between looks at the store: tasks of other hosts whose announcement was lost,
   * lapsed leases, a store that failed.
   */
  pollMs: number;
  /** Shared stores: tells the other hosts that due tasks wait which this host will not start now. */
  announce?(): void;
}

export interface TaskRunner {
  start(): void;
  /** Look for due work now rather than at the next timer (another host announced some; a test moved the clock). */
  poke(): void;
  /** A task due at `runAt` was queued on this host: look now, and announce it when there is no room for it here. */
  queued(runAt: number): void;
  /** Stops claiming; waits for the attempts in flight to settle. */
  stop(): Promise<void>;
}

/** Tasks running at once on this host. */
const CONCURRENCY = 4;

type Verdict = { status: 'succeeded' } | { status: 'retry'; reason: string } | { status: 'failed'; reason: string };

function judge(outcome: DispatchOutcome): Verdict {
  const status = outcome.response.status;
  if (status >= 200 && status < 300) return { status: 'succeeded' };
  if (outcome.verdict === 'no-handler') return { status: 'failed', reason: 'the integration has no task handler' };
  if (status >= 500) return { status: 'retry', reason: `it answered ${status}` };
  return { status: 'failed', reason: `it answered ${status}` };
}

export function createTaskRunner(deps: TaskRunnerDeps): TaskRunner {
  async function attempt(task: TaskRecord): Promise<void> {
    let verdict: Verdict;
    let lastStatus: number;
    try {
      const outcome = await deps.dispatch(task.integration, {
        type: 'task',
        eventId: task.eventId,
        task: task.payload,
      });
      verdict = judge(outcome);
      lastStatus = outcome.response.status;
    } catch (error) {
      // The host failed the dispatch (timeout, crash, quarantine, integration not loaded): worth another try.
      lastStatus = isHostError(error) ? error.status : 500;
      verdict = {
        status: 'retry',
        reason: isHostError(error) ? `${error.code}: ${error.message}` : 'an internal error',
      };
    }
    const now = deps.now();
    const where = `task ${task.id} of ${task.integration} (attempt ${task.attempts}/${deps.limits.taskMaxAttempts})`;
    if (verdict.status === 'succeeded') {
      await deps.store.settle(task.id, { status: 'succeeded' }, { number: task.attempts, lastStatus, now });
      return;
    }
    if (verdict.status === 'retry' && task.attempts < deps.limits.taskMaxAttempts) {
      const runAt = now + retryDelayMs(deps.limits.taskRetryBaseMs, task.attempts);
      deps.log.warn(`${where} failed: ${verdict.reason}; retrying at ${new Date(runAt).toISOString()}`);
      await deps.store.settle(
        task.id,
        { status: 'pending', runAt },
        { number: task.attempts, lastStatus, lastError: verdict.reason, now },
      );
      return;
    }
    deps.log.warn(`${where} failed for good: ${verdict.reason}`);
    await deps.store.settle(
      task.id,
      { status: 'failed' },
      { number: task.attempts, lastStatus, lastError: verdict.reason, now },
    );
  }

  return createLeaseLoop<TaskRecord>({
    name: 'task runner',
    concurrency: CONCURRENCY,
    maxSleepMs: deps.pollMs,
    claim: (free) => deps.store.claimDue(deps.now(), deps.leaseMs, free),
    attempt,
    describe: (task) => `task ${task.id}`,
    nextDueAt: () => deps.store.nextDueAt(),
    now: deps.now,
    log: deps.log,
    ...(deps.announce ? { announce: deps.announce } : {}),
  });
}
