// Runs queued integration tasks as `task` events (docs/platform-api.md#tasks): claims due tasks from
// the store under a lease, dispatches each to its integration (no installation: the integration's
// own environment), and settles it: a 2xx answer succeeds; a 5xx or a failed dispatch is retried
// later (6× the previous delay) until its attempts run out; a 4xx or "no handler" fails at once.
// Every attempt is in the integration's event log; retries and failures in the host log.

import { isHostError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import type { DispatchOutcome } from '../dispatch/dispatcher.ts';
import type { TaskLimits, TaskRecord, TaskStore } from './model.ts';

export interface TaskRunnerDeps {
  store: TaskStore;
  limits: TaskLimits;
  /** Dispatches one `task` event to the integration itself. */
  dispatch(integration: string, event: { type: 'task'; eventId: string; task: Record<string, unknown> }): Promise<DispatchOutcome>;
  now(): number;
  log: Logger;
  /** How long a claimed task is presumed in progress (beyond the dispatch deadline and waitUntil work). */
  leaseMs: number;
}

export interface TaskRunner {
  start(): void;
  /** A task was queued: look for due work now rather than at the next timer. */
  poke(): void;
  /** Stops claiming; waits for the attempts in flight to settle. */
  stop(): Promise<void>;
}

/** Tasks running at once on this host. */
const CONCURRENCY = 4;
/** The longest sleep between looks at the store (tasks of other hosts, lapsed leases). */
const MAX_SLEEP_MS = 5_000;

type Verdict = { status: 'succeeded' } | { status: 'retry'; reason: string } | { status: 'failed'; reason: string };

function judge(outcome: DispatchOutcome): Verdict {
  const status = outcome.response.status;
  if (status >= 200 && status < 300) return { status: 'succeeded' };
  if (outcome.verdict === 'no-handler') return { status: 'failed', reason: 'the integration has no task handler' };
  if (status >= 500) return { status: 'retry', reason: `it answered ${status}` };
  return { status: 'failed', reason: `it answered ${status}` };
}

export function createTaskRunner(deps: TaskRunnerDeps): TaskRunner {
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let ticking: Promise<void> | undefined;
  let again = false;
  const inFlight = new Set<Promise<void>>();

  const retryDelay = (attempts: number): number => deps.limits.taskRetryBaseMs * 6 ** Math.max(0, attempts - 1);

  async function attempt(task: TaskRecord): Promise<void> {
    let verdict: Verdict;
    let lastStatus: number;
    try {
      const outcome = await deps.dispatch(task.integration, { type: 'task', eventId: task.eventId, task: task.payload });
      verdict = judge(outcome);
      lastStatus = outcome.response.status;
    } catch (error) {
      // The host failed the dispatch (timeout, crash, quarantine, integration not loaded): worth another try.
      lastStatus = isHostError(error) ? error.status : 500;
      verdict = { status: 'retry', reason: isHostError(error) ? `${error.code}: ${error.message}` : 'an internal error' };
    }
    const now = deps.now();
    const where = `task ${task.id} of ${task.integration} (attempt ${task.attempts}/${deps.limits.taskMaxAttempts})`;
    if (verdict.status === 'succeeded') {
      await deps.store.settle(task.id, { status: 'succeeded' }, { number: task.attempts, lastStatus, now });
      return;
    }
    if (verdict.status === 'retry' && task.attempts < deps.limits.taskMaxAttempts) {
      const runAt = now + retryDelay(task.attempts);
      deps.log.warn(`${where} failed: ${verdict.reason}; retrying at ${new Date(runAt).toISOString()}`);
      await deps.store.settle(task.id, { status: 'pending', runAt }, { number: task.attempts, lastStatus, lastError: verdict.reason, now });
      return;
    }
    deps.log.warn(`${where} failed for good: ${verdict.reason}`);
    await deps.store.settle(task.id, { status: 'failed' }, { number: task.attempts, lastStatus, lastError: verdict.reason, now });
  }

  async function tick(): Promise<void> {
    do {
      again = false;
      const free = CONCURRENCY - inFlight.size;
      if (free > 0 && !stopped) {
        for (const task of await deps.store.claimDue(deps.now(), deps.leaseMs, free)) {
          const running = attempt(task)
            .catch((error: unknown) => deps.log.error(`task ${task.id} could not be settled: ${(error as Error).message}`))
            .finally(() => {
              inFlight.delete(running);
              runner.poke();
            });
          inFlight.add(running);
        }
      }
    } while (again && !stopped);
    // With every slot busy, the next attempt to settle looks again.
    if (stopped || inFlight.size >= CONCURRENCY) return;
    const next = await deps.store.nextDueAt();
    const sleep = next === undefined ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(0, next - deps.now()));
    clearTimeout(timer);
    timer = setTimeout(() => runner.poke(), sleep);
    timer.unref();
  }

  const runner: TaskRunner = {
    start() {
      stopped = false;
      runner.poke();
    },
    poke() {
      if (stopped) return;
      if (ticking !== undefined) {
        again = true;
        return;
      }
      ticking = tick()
        .catch((error: unknown) => deps.log.error(`task runner: ${(error as Error).message}`))
        .finally(() => {
          ticking = undefined;
          if (again) runner.poke();
        });
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await Promise.allSettled([...inFlight]);
    },
  };
  return runner;
}
