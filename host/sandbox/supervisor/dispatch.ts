// One dispatch from its arrival to its answer, in named steps (admit, place, wait for the worker,
// build the message, take the offenders' budget, send), and settling the worker's result. It never
// spawns a worker nor decides a demotion: it reports offences to the offender ladder.

import type { Envelope } from '../../../sandbox-api/runtime/contract.ts';
import { HostError } from '../../common/errors.ts';
import { burnedCpu, sendingBudget, timeoutIsOffence } from '../../offenders/index.ts';
import type { CrashLedger } from '../crash-ledger.ts';
import { environmentKey } from '../held-environments.ts';
import type { DispatchFailure, DispatchRequest, DispatchResult } from '../messages.ts';
import type { Placement } from '../placement.ts';
import { settledBy, untilMoment } from '../settled-by.ts';
import { answeredBody } from '../slot-bodies.ts';
import type { TimeoutBreaker } from '../timeout-breaker.ts';
import { post, readyBy, takePending, type Pending, type Slot, type SupervisedOutcome } from '../worker-slot.ts';
import type { HostDeadlines } from './host-deadlines.ts';
import type { OffenderLadder } from './offender-ladder.ts';
import type { SupervisorOptions } from './options.ts';
import type { Routing } from './routing.ts';
import type { WorkerLifecycle } from './worker-lifecycle.ts';

const FAILURE_ERRORS: Record<DispatchFailure, (message: string) => HostError> = {
  timeout: (message) => new HostError('ERR_SANDBOX_TIMEOUT', message),
  memory: (message) => new HostError('ERR_SANDBOX_CRASHED', message),
  'bad-response': (message) => new HostError('ERR_SANDBOX_BAD_RESPONSE', message),
  'not-registered': () => new HostError('ERR_SANDBOX_UNAVAILABLE', 'the integration is not loaded'),
  'isolate-reset': (message) => new HostError('ERR_SANDBOX_CRASHED', message),
};

/** The units a dispatch goes through. */
export interface DispatchUnits {
  routing: Routing;
  lifecycle: WorkerLifecycle;
  placement: Placement;
  ledger: CrashLedger;
  breaker: TimeoutBreaker;
  ladder: OffenderLadder;
  deadlines: HostDeadlines;
}

export class Dispatch {
  private nextId = 1;
  private readonly environmentTexts = new WeakMap<object, string>();
  private readonly units: DispatchUnits;
  private readonly options: SupervisorOptions;

  constructor(units: DispatchUnits, options: SupervisorOptions) {
    this.units = units;
    this.options = options;
  }

  /**
   * Runs one envelope. With `stream`, a response body that the integration produces as a stream
   * follows the answer (SupervisedOutcome.body) instead of being collected first.
   */
  async run(integration: string, envelope: Envelope, options: { stream?: boolean } = {}): Promise<SupervisedOutcome> {
    // On the offenders' workers the host keeps the deadline from here, the dispatch's arrival:
    // what it waits for first (the verdict below, a restarting worker) comes out of that time, and
    // the worker gets what is left of it (sendingBudget).
    const deadlineAt = performance.now() + this.options.limits.dispatchTimeoutMs;
    await this.admit(integration, envelope.event.eventId, deadlineAt);
    this.place(integration);
    // The worker enforces the deadline, but it may be starved of CPU (offenders run at the lowest
    // priority) or restarting: the host answers by the backstop whatever happens there (and on the
    // offenders' workers at the deadline itself: answerAtDeadline).
    const answerBy = performance.now() + this.units.deadlines.backstopMs;
    const slot = await this.readySlot(integration, answerBy);
    const id = this.nextId++;
    const message = this.dispatchMessage(slot, id, integration, envelope, options);
    const budget = await this.offendersBudget(slot, integration, envelope.event.eventId, deadlineAt);
    if (budget !== undefined) message.deadlineMs = budget;
    return this.send(slot, message, envelope.environment, answerBy, budget);
  }

  /**
   * Whether the integration may run now: its previous verdict arrived, it is neither quarantined nor paused, and it is
   * loaded.
   */
  private async admit(integration: string, eventId: string, deadlineAt: number): Promise<void> {
    const { deadlines, ledger, breaker, lifecycle, routing } = this.units;
    // An earlier dispatch was answered at its deadline by the host before its worker's verdict
    // (answerAtDeadline): that verdict (a timeout counted or not) decides whether this one runs,
    // exactly as when the host waited for it. It comes from an offenders' worker, whose main
    // thread can be held up (a core, a lock a throttled guest thread holds): this request waits
    // for it only until its own deadline.
    const due = deadlines.verdictDue(integration);
    if (due !== undefined && !(await settledBy(due, deadlineAt))) {
      throw deadlines.unsent(
        integration,
        eventId,
        'the verdict on its previous request was still on its way from its sandbox worker',
      );
    }
    if (ledger.isQuarantined(integration)) {
      throw new HostError(
        'ERR_INTEGRATION_QUARANTINED',
        `integration "${integration}" is quarantined after crashing ` +
          `its sandbox repeatedly; restart the host to lift it`,
      );
    }
    const pausedMs = breaker.retryAfterMs(integration);
    if (pausedMs > 0) {
      throw new HostError(
        'ERR_INTEGRATION_THROTTLED',
        `integration "${integration}" keeps running past its deadline ` +
          `and is paused; retry in ${Math.ceil(pausedMs / 1000)} s`,
      );
    }
    if (lifecycle.stopped || !routing.pins.has(integration))
      throw new HostError('ERR_SANDBOX_UNAVAILABLE', `integration "${integration}" is not loaded`);
  }

  /**
   * Moves the integration before it runs where that is due: to room for its isolate, or back from a starving
   * SCHED_IDLE worker.
   */
  private place(integration: string): void {
    const { routing, placement, ladder } = this.units;
    // A cold integration on a worker that is out of isolate memory starts where there is room.
    const pinned = routing.pins.get(integration)!;
    const roomier = placement.target(pinned, integration);
    if (roomier !== undefined && !routing.inFlight(pinned, integration)) routing.move(integration, roomier);
    ladder.returnIfStarved(integration, pinned);
  }

  /** The worker the integration is pinned to, once it is ready (or `answerBy` passed). */
  private async readySlot(integration: string, answerBy: number): Promise<Slot> {
    const { routing, lifecycle } = this.units;
    // A worker being restarted is replaced in its slot, and the integration may move meanwhile:
    // wait for whichever process holds its slot now.
    let current = routing.slotOf(integration);
    while (current !== undefined) {
      await readyBy(current, answerBy);
      const now = routing.slotOf(integration);
      if (now === current) break;
      current = now;
    }
    if (lifecycle.stopped || current === undefined)
      throw new HostError('ERR_SANDBOX_UNAVAILABLE', 'the host is shutting down');
    return current;
  }

  /**
   * The dispatch message, with the environment's text unless the worker holds it already (when it is full, it first
   * forgets them all).
   */
  private dispatchMessage(
    slot: Slot,
    id: number,
    integration: string,
    envelope: Envelope,
    options: { stream?: boolean },
  ): DispatchRequest {
    const { event, fetchBody, environment } = envelope;
    const installationId = String(event.installationId ?? '');
    const requestUrl = event.request?.url;
    // Per integration and installation: a dispatch to the integration itself (no installation)
    // must never be given another integration's environment cached on the same worker.
    const key = environmentKey(integration, installationId);
    const known = slot.heldEnvironments.holds(key, environment);
    if (!known && slot.heldEnvironments.isFullFor(key)) {
      // Sent before the dispatch on the same channel: the worker empties its store first.
      slot.heldEnvironments.clear();
      post(slot, { type: 'forget-environments' });
    }
    // Serialised before anything is pending: should it throw, nothing waits for the backstop.
    return {
      type: 'dispatch',
      id,
      integration,
      eventId: event.eventId,
      installationId,
      eventJson: JSON.stringify(event),
      ...(typeof requestUrl === 'string' ? { requestUrl } : {}),
      fetchBody,
      environmentKey: key,
      ...(known ? {} : { environmentJson: this.environmentJson(environment) }),
      ...(options.stream === true ? { stream: true } : {}),
    };
  }

  /**
   * On an offenders' worker, what is left of the deadline for the worker; a request with too little left is never
   * sent.
   */
  private async offendersBudget(
    slot: Slot,
    integration: string,
    eventId: string,
    deadlineAt: number,
  ): Promise<number | undefined> {
    if (slot.priority === 'normal') return undefined;
    const left = sendingBudget(deadlineAt, performance.now(), this.options.limits.dispatchTimeoutMs);
    if (left === null) {
      // Most of its deadline went on waiting (for a verdict, a restart): never sent, answered at the deadline.
      await untilMoment(deadlineAt);
      throw this.units.deadlines.unsent(
        integration,
        eventId,
        `the host held the request: waiting for sandbox worker ${slot.index} (a verdict on its ` +
          `previous request, a restart) took more than half of it, so it was never sent`,
      );
    }
    return left;
  }

  /**
   * Sends the message with its answer pending, under the backstop (and the offenders' deadline when there is a
   * budget).
   */
  private send(
    slot: Slot,
    message: DispatchRequest,
    environment: Envelope['environment'],
    answerBy: number,
    budget: number | undefined,
  ): Promise<SupervisedOutcome> {
    const { id, integration, eventId, environmentKey: key } = message;
    const { deadlines } = this.units;
    return new Promise<SupervisedOutcome>((resolve, reject) => {
      const backstop = setTimeout(() => deadlines.abandon(slot, id), Math.max(0, answerBy - performance.now()));
      const pending: Pending = { integration, eventId, resolve, reject, backstop };
      if (budget !== undefined) pending.deadline = setTimeout(() => deadlines.answerAtDeadline(slot, id), budget);
      slot.pending.set(id, pending);
      post(slot, message);
      slot.heldEnvironments.record(key, environment);
    });
  }

  /** A worker's result: answers the pending dispatch, and reports a memory kill or a timeout to the ladder. */
  settle(slot: Slot, result: DispatchResult): void {
    const { placement, ladder, deadlines } = this.units;
    const pending = takePending(slot, result.id);
    if (pending === undefined) return;
    if (result.draining) slot.draining.add(pending.integration);
    else slot.draining.delete(pending.integration);
    for (const line of result.logs)
      this.options.onLog({ integration: pending.integration, eventIds: [pending.eventId], ...line });
    if (result.ok) {
      placement.started(slot.index, pending.integration);
      const outcome: SupervisedOutcome = {
        response: result.response,
        logs: result.logs,
        durationMs: result.durationMs,
      };
      if (result.streamed === true) outcome.body = answeredBody(slot, result.id);
      return pending.resolve(outcome);
    }
    if (result.failure === 'memory') {
      ladder.strike(pending.integration, 'exceeded its memory limit');
      ladder.demote(pending.integration, 'exceeded its memory limit', burnedCpu(result.executedMs), slot.index);
    }
    if (result.failure === 'timeout' && !timeoutIsOffence(result))
      deadlines.startTimeout(pending.integration, `sandbox worker ${slot.index} was still preparing its isolate`);
    else if (result.failure === 'timeout')
      ladder.countTimeout(pending.integration, burnedCpu(result.executedMs), slot.index);
    // The worker's own measure of the dispatch travels with the error, as with a success.
    pending.reject(
      Object.assign(FAILURE_ERRORS[result.failure](result.message), {
        logs: result.logs,
        durationMs: result.durationMs,
      }),
    );
  }

  /** An environment's JSON text, made once per environment object (the dispatcher reuses them). */
  environmentJson(environment: Envelope['environment']): string {
    let json = this.environmentTexts.get(environment);
    if (json === undefined) {
      json = JSON.stringify(environment);
      this.environmentTexts.set(environment, json);
    }
    return json;
  }
}
