// Delivers the platform events owed to installations (installation_setup and its space and site
// forms; docs/operations.md#owed-platform-events): claims each installation's oldest unfinished
// event under a lease, dispatches it to the installation as stored now, and settles it. A 2xx
// answer, or no handler for it, delivers it; a 5xx or a failed dispatch is retried (growing,
// bounded delays) until its attempts run out; a 4xx fails it at once. Every attempt is in the
// event log under the event's id; retries and failures are in the host log. Never decides what is owed.

import { isHostError } from '../common/errors.ts';
import { createLeaseLoop } from '../common/lease-loop.ts';
import { withoutRequestId, withRequestId } from '../common/request-context.ts';
import type { Logger } from '../common/logger.ts';
import type { DispatchOutcome } from '../dispatch/event-dispatcher.ts';
import type { Installation } from '../installations/model.ts';
import { owedRetryDelay, type OwedEventLimits, type OwedEventRecord, type OwedEventStore } from './model.ts';

export interface OwedEventRunnerDeps {
  store: OwedEventStore;
  limits: OwedEventLimits;
  /** The installation as stored now; undefined once it was removed. */
  getInstallation(id: string): Promise<Installation | undefined>;
  /** Dispatches the event (with its own event id) to the installation. */
  dispatch(installation: Installation, event: OwedEventRecord['event'] & { eventId: string }): Promise<DispatchOutcome>;
  now(): number;
  log: Logger;
  /** How long a claimed event is presumed in progress; a claim held longer had its host die. */
  leaseMs: number;
  /** Told the result of every settled attempt (the metrics). */
  onAttempt?(result: 'delivered' | 'retry' | 'failed'): void;
  /**
   * The longest sleep between looks at the store: on a shared store, the safety net for another
   * host's lost announcement and for a lapsed lease.
   */
  pollMs: number;
  /** Shared stores: tells the other hosts that due events wait which this host will not start now. */
  announce?(): void;
}

export interface OwedEventRunner {
  /** Takes back what a previous run left running (store.resumeAbandoned), then delivers. */
  start(): Promise<void>;
  /** Another host announced due events: look for them now rather than at the next timer. */
  poke(): void;
  /** Events were owed on this host: look now, and announce them when there is no room for them here. */
  queued(): void;
  /** Stops claiming; waits for the attempts in flight to settle. */
  stop(): Promise<void>;
}

/**
 * Events delivered at once on this host (each of a different installation): bounded, yet wide enough that the setup
 * events of the installations a host makes at start do not trail behind each other.
 */
const CONCURRENCY = 16;

type Verdict = { status: 'delivered' } | { status: 'retry'; reason: string } | { status: 'failed'; reason: string };

function judge(outcome: DispatchOutcome): Verdict {
  const status = outcome.response.status;
  // An integration without a handler for the event has nothing to do with it: it was delivered.
  if ((status >= 200 && status < 300) || outcome.verdict === 'no-handler') return { status: 'delivered' };
  if (status >= 500) return { status: 'retry', reason: `it answered ${status}` };
  return { status: 'failed', reason: `it answered ${status}` };
}

export function createOwedEventRunner(deps: OwedEventRunnerDeps): OwedEventRunner {
  async function attempt(owed: OwedEventRecord): Promise<void> {
    const where =
      `${owed.event.type} ${owed.id} for ${owed.installationId} ` +
      `(attempt ${owed.attempts}/${deps.limits.maxAttempts})`;
    const settle = async (outcome: Parameters<OwedEventStore['settle']>[1], lastStatus: number, lastError?: string) => {
      await deps.store.settle(owed.id, outcome, {
        number: owed.attempts,
        lastStatus,
        ...(lastError !== undefined ? { lastError } : {}),
        now: deps.now(),
      });
      deps.onAttempt?.(outcome.status === 'pending' ? 'retry' : outcome.status);
    };
    const installation = await deps.getInstallation(owed.installationId);
    if (installation === undefined) {
      deps.log.info(`${where} dropped: the installation was removed`);
      await settle({ status: 'failed' }, 404, 'the installation was removed');
      return;
    }
    let verdict: Verdict;
    let lastStatus: number;
    try {
      // Logged under the request that owed it, never under whichever request happened to wake the runner.
      const dispatch = () => deps.dispatch(installation, { ...owed.event, eventId: owed.id });
      const outcome = await (owed.requestId !== undefined
        ? withRequestId(owed.requestId, dispatch)
        : withoutRequestId(dispatch));
      verdict = judge(outcome);
      lastStatus = outcome.response.status;
    } catch (error) {
      // The host failed the dispatch (timeout, crash, quarantine, integration not loaded here): worth another try.
      lastStatus = isHostError(error) ? error.status : 500;
      verdict = {
        status: 'retry',
        reason: isHostError(error) ? `${error.code}: ${error.message}` : 'an internal error',
      };
    }
    if (verdict.status === 'delivered') {
      await settle({ status: 'delivered' }, lastStatus);
      return;
    }
    if (verdict.status === 'retry' && owed.attempts < deps.limits.maxAttempts) {
      const runAt = deps.now() + owedRetryDelay(deps.limits, owed.attempts);
      deps.log.warn(`${where} failed: ${verdict.reason}; retrying at ${new Date(runAt).toISOString()}`);
      await settle({ status: 'pending', runAt }, lastStatus, verdict.reason);
      return;
    }
    deps.log.warn(`${where} failed for good: ${verdict.reason}; the installation's next event follows`);
    await settle({ status: 'failed' }, lastStatus, verdict.reason);
  }

  const loop = createLeaseLoop<OwedEventRecord>({
    name: 'owed events',
    concurrency: CONCURRENCY,
    maxSleepMs: deps.pollMs,
    claim: (free) => deps.store.claimDue(deps.now(), deps.leaseMs, free),
    attempt,
    describe: (owed) => `${owed.event.type} ${owed.id} for ${owed.installationId}`,
    nextDueAt: () => deps.store.nextDueAt(),
    now: deps.now,
    log: deps.log,
    ...(deps.announce ? { announce: deps.announce } : {}),
  });
  return {
    async start() {
      const resumed = await deps.store.resumeAbandoned(deps.now());
      if (resumed > 0) deps.log.warn(`owed events: resuming ${resumed} event(s) left in flight by a previous run`);
      loop.start();
    },
    poke: () => loop.poke(),
    // Owed events are due when written (run_at is their creation).
    queued: () => loop.queued(deps.now()),
    stop: () => loop.stop(),
  };
}
