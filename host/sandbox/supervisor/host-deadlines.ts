// The 504s the host answers itself: at an offenders' dispatch's deadline (the worker's verdict
// still decides what counts), at the backstop for a silent worker, and for a request it never sent.
// It never moves or blames an integration: a timeout it counts goes to `countTimeout`.

import { HostError } from '../../common/errors.ts';
import { post, takePending, type LateVerdict, type Slot } from '../worker-slot.ts';
import type { SupervisorOptions } from './options.ts';

/** At least this much on top of the dispatch deadline before the host answers for a silent worker. */
const BACKSTOP_GRACE_MS = 5_000;

/** Counts a timeout against an integration (the offender ladder's countTimeout). */
export type CountTimeout = (integration: string, burned: boolean, from: number) => void;

export class HostDeadlines {
  /** Integrations with a dispatch answered at its deadline whose worker's verdict is still due (answerAtDeadline). */
  private readonly verdictsDue = new Map<string, Promise<void>>();
  private readonly options: SupervisorOptions;
  private readonly countTimeout: CountTimeout;

  constructor(options: SupervisorOptions, countTimeout: CountTimeout) {
    this.options = options;
    this.countTimeout = countTimeout;
  }

  /** The verdicts still due on `integration`'s dispatches answered at their deadline, if any. */
  verdictDue(integration: string): Promise<void> | undefined {
    return this.verdictsDue.get(integration);
  }

  /**
   * When the host stops waiting for a worker's answer: twice the deadline, and at least the
   * deadline plus BACKSTOP_GRACE_MS (a regular worker's deadline starts only once the isolate's
   * realm is built, so a cold start needs room; an offenders' worker's runs from the dispatch's
   * arrival). Normally the worker answers long before.
   */
  get backstopMs(): number {
    const deadline = this.options.limits.dispatchTimeoutMs;
    return deadline + Math.max(deadline, BACKSTOP_GRACE_MS);
  }

  /**
   * The deadline passed on an offenders' worker (counted from the dispatch's arrival at dispatch()) and its
   * answer is not in: the caller gets its 504 now. Waiting for the worker would add its wake-up and
   * the hop back, or much more when it waits for a core or on a thread the offenders' quota holds
   * (performance.md). The worker's verdict still decides what counts, as when the host waits: the
   * pending entry stays until it arrives (or the backstop), then settles `verdict`, which carries
   * the guest's lines to the event log's row, and holds this integration's next dispatch until then
   * (or until that dispatch's own deadline).
   */
  answerAtDeadline(slot: Slot, id: number): void {
    const pending = slot.pending.get(id);
    if (pending === undefined) return;
    const answer = pending.reject;
    const answeredAt = performance.now();
    pending.answered = true;
    let deliver: (details: LateVerdict) => void = () => undefined;
    const verdict = new Promise<LateVerdict>((resolve) => (deliver = resolve));
    pending.resolve = (outcome) => {
      // Nobody will read its body: the worker stops producing it.
      outcome.body?.cancel();
      // The guest finished inside its own deadline as its worker counts it (from the dispatch's
      // arrival there), but after the host had answered: say so to its author; nothing is counted.
      this.options.onLog({
        integration: pending.integration,
        eventIds: [pending.eventId],
        level: 'warn',
        text:
          `its answer arrived ${Math.round(performance.now() - answeredAt)} ms after the host had ` +
          `answered 504 at its deadline of ${this.options.limits.dispatchTimeoutMs} ms: dropped`,
      });
      deliver({ logs: outcome.logs, durationMs: outcome.durationMs });
    };
    pending.reject = (error) => {
      const { logs, durationMs } = error as { logs?: unknown; durationMs?: unknown };
      deliver({
        logs: Array.isArray(logs) ? (logs as LateVerdict['logs']) : [],
        ...(typeof durationMs === 'number' ? { durationMs } : {}),
      });
    };
    this.awaitVerdict(pending.integration, verdict);
    answer(Object.assign(this.timeoutError(), { logs: [], verdict }));
  }

  /**
   * Holds `integration`'s next dispatches until `verdict` (and any other still due) has arrived, or their own deadline
   * passed.
   */
  private awaitVerdict(integration: string, verdict: Promise<unknown>): void {
    const earlier = this.verdictsDue.get(integration);
    const all =
      earlier === undefined ? verdict.then(() => undefined) : Promise.all([earlier, verdict]).then(() => undefined);
    this.verdictsDue.set(integration, all);
    void all.then(() => {
      if (this.verdictsDue.get(integration) === all) this.verdictsDue.delete(integration);
    });
  }

  /** The backstop passed: answer 504 for the silent worker, count it as a timeout, tell the worker. */
  abandon(slot: Slot, id: number): void {
    const pending = takePending(slot, id);
    if (pending === undefined) return;
    const answered =
      pending.answered === true
        ? 'the host had answered 504 at the deadline; counted as a timeout'
        : 'answered 504 for it';
    this.options.onNotice(
      'warn',
      `sandbox worker ${slot.index} did not answer a dispatch of ` +
        `"${pending.integration}" within ${this.backstopMs} ms: ${answered}`,
    );
    post(slot, { type: 'abandon', id });
    this.countTimeout(pending.integration, false, slot.index);
    pending.reject(Object.assign(this.timeoutError(), { logs: [] }));
  }

  /** The 504 the host itself answers, at the deadline or at the backstop. */
  private timeoutError(): HostError {
    return new HostError(
      'ERR_SANDBOX_TIMEOUT',
      `the integration did not answer within ${this.options.limits.dispatchTimeoutMs} ms`,
    );
  }

  /**
   * A deadline passed on an offenders' worker before any of the integration's code ran (its realm
   * was still being built on threads the offenders' quota holds, or the host still waited for that
   * worker's verdict on the integration's previous request): answered 504 like any timeout, but
   * neither counted by the breaker nor a reason to demote: the slowness is the host's (and the
   * other offenders'), and counting it would pause or push down an integration for what it never
   * did. A realm being built is kept for its next dispatch (isolate.ts), which runs its code and counts.
   */
  startTimeout(integration: string, why: string, eventId?: string): string {
    this.options.onCount?.('start_timeout', integration);
    const text =
      `its deadline of ${this.options.limits.dispatchTimeoutMs} ms passed while ${why} ` +
      `(none of its code ran): answered 504, not counted as its timeout`;
    this.options.onLog({ integration, eventIds: eventId === undefined ? [] : [eventId], level: 'warn', text });
    return text;
  }

  /** The 504 of an offenders' request the host never sent (a start timeout); its event's row says why. */
  unsent(integration: string, eventId: string, why: string): HostError {
    const text = this.startTimeout(integration, why, eventId);
    return Object.assign(this.timeoutError(), { logs: [{ level: 'warn', text }] });
  }
}
