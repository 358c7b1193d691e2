// Parent side of the sandbox: forks the worker processes, pins each integration to one, routes
// dispatches, restarts dead workers, fails their in-flight work with 502, and strikes (then
// quarantines) only an integration a crash can be pinned on. It never loads isolated-vm itself.
// It wires the units in supervisor/ (routing, worker lifecycle, offender ladder, host deadlines,
// dispatch) and holds none of their state.

import type { BridgeRequest, BridgeResponse, BridgeResult, Envelope } from '../../sandbox-api/runtime/contract.ts';
import type { FromWorker } from './messages.ts';
import { CrashLedger } from './crash-ledger.ts';
import { TimeoutBreaker } from './timeout-breaker.ts';
import { post, type Slot, type SupervisedOutcome } from './worker-slot.ts';
import { Placement } from './placement.ts';
import { OffenderScheduling } from '../offenders/index.ts';
import type { ApiHandler, SandboxBundle, SupervisorOptions } from './supervisor/options.ts';
import { Routing } from './supervisor/routing.ts';
import { WorkerLifecycle } from './supervisor/worker-lifecycle.ts';
import { OffenderLadder } from './supervisor/offender-ladder.ts';
import { HostDeadlines } from './supervisor/host-deadlines.ts';
import { Dispatch } from './supervisor/dispatch.ts';

export type { SupervisedOutcome } from './worker-slot.ts';
export type { ApiHandler, SandboxBundle, SandboxCountName, SupervisorOptions } from './supervisor/options.ts';

export class Supervisor {
  private readonly routing: Routing;
  private readonly lifecycle: WorkerLifecycle;
  private readonly ladder: OffenderLadder;
  private readonly deadlines: HostDeadlines;
  private readonly dispatcher: Dispatch;
  private readonly ledger: CrashLedger;
  private readonly breaker: TimeoutBreaker;
  /** The offenders' CPU-quota group and the spare-CPU verdicts (host/offenders/). */
  private readonly scheduling: OffenderScheduling;
  private readonly options: SupervisorOptions;
  private apiHandler: ApiHandler | null = null;

  private readonly placement: Placement;

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.placement = new Placement(
      Math.max(1, options.workers) + (options.demoteOffenders ? 2 : 0),
      Math.max(1, options.workers),
    );
    this.ledger = new CrashLedger(options.crashesBeforeQuarantine, options.crashWindowMs);
    this.breaker = new TimeoutBreaker(options.timeoutBreaker);
    this.scheduling = new OffenderScheduling(options);
    this.routing = new Routing(options.workers, options.demoteOffenders);
    this.lifecycle = new WorkerLifecycle(this.routing, this.placement, options, {
      onMessage: (slot, message) => this.onMessage(slot, message),
      onSchedIdleProblem: (slot, problem) => this.ladder.schedIdleUnavailable(slot, problem),
      onCrash: (slot, suspects) => this.ladder.blameCrash(slot, suspects),
      quotaTasks: () => this.scheduling.quotaTasks,
    });
    this.ladder = new OffenderLadder(this.routing, this.lifecycle, this.ledger, this.breaker, this.scheduling, options);
    this.deadlines = new HostDeadlines(options, (integration, burned, from) =>
      this.ladder.countTimeout(integration, burned, from),
    );
    const { routing, lifecycle, placement, ledger, breaker, ladder, deadlines } = this;
    this.dispatcher = new Dispatch({ routing, lifecycle, placement, ledger, breaker, ladder, deadlines }, options);
  }

  async start(): Promise<void> {
    const { regularCount } = this.routing;
    for (let index = 0; index < regularCount; index++) this.lifecycle.start(index);
    if (this.options.demoteOffenders) {
      this.scheduling.openQuotaGroup();
      this.lifecycle.start(regularCount);
      this.lifecycle.start(regularCount + 1); // the SCHED_IDLE worker
      this.scheduling.startSampling({
        present: () => this.schedIdleWorker !== undefined,
        pid: () => this.workerPid(this.routing.schedIdleIndex!),
        hasWork: () => (this.routing.slots.get(this.schedIdleWorker!)?.pending.size ?? 0) > 0,
      });
    }
    await Promise.all([...this.routing.slots.values()].map((slot) => slot.ready));
  }

  /** The directory of this host's offenders' CPU group, while it has one (tests, diagnostics). */
  get offendersCpuGroup(): string | undefined {
    return this.scheduling.quotaGroupDir;
  }

  /** How many sandbox workers are running and ready, of how many (the readiness route). */
  workersUp(): { up: number; total: number } {
    return this.lifecycle.workersUp();
  }

  /** Whether normal work left no CPU to spare in the last second (then SCHED_IDLE work would starve). */
  get machineSaturated(): boolean {
    return this.scheduling.machineSaturated;
  }

  /** Whether the SCHED_IDLE worker starved (had work and got no CPU) within the last STARVED_HOLD_MS. */
  get schedIdleStarved(): boolean {
    return this.scheduling.schedIdleStarved;
  }

  /** The index of the low-priority (nice 19) worker for offenders, if there is one. */
  get offenderWorker(): number | undefined {
    return this.routing.offenderWorker;
  }

  /**
   * The index of the SCHED_IDLE worker for offenders that burned CPU again on the offenders' worker;
   * undefined without demotion, or once the policy turned out to be unavailable (then they stay on
   * the nice-19 worker).
   */
  get schedIdleWorker(): number | undefined {
    return this.ladder.schedIdleWorker;
  }

  get workerCount(): number {
    return this.routing.slots.size;
  }

  /**
   * Resolves once the workers' verdicts on `integration`'s dispatches answered at their deadline have
   * all arrived (answerAtDeadline): what they count (timeouts, moves) is then in place. For tests
   * and diagnostics; the integration's own next dispatch waits for them by itself (until its own deadline).
   */
  verdictsArrived(integration: string): Promise<void> {
    return this.deadlines.verdictDue(integration) ?? Promise.resolve();
  }

  /** Worker process ids in worker order (solitary workers last), for tests and diagnostics. */
  workerPids(): number[] {
    return this.routing.workerPids();
  }

  /** The process id of worker `index` (-1 when there is none). */
  workerPid(index: number): number {
    return this.routing.workerPid(index);
  }

  workerOf(integration: string): number | undefined {
    return this.routing.workerOf(integration);
  }

  /** Live isolates per regular and offenders' worker as the supervisor knows them (diagnostics and tests). */
  liveIsolateCounts(): number[] {
    return this.placement.liveCounts();
  }

  /** Whether the integration runs on a worker of its own after an unattributable crash. */
  isSolitary(integration: string): boolean {
    return this.ladder.isSolitary(integration);
  }

  /** Dispatches in flight on every worker (setup events included), or of one integration; for tests and diagnostics. */
  inFlightCount(integration?: string): number {
    return this.routing.inFlightCount(integration);
  }

  isQuarantined(integration: string): boolean {
    return this.ledger.isQuarantined(integration);
  }

  /**
   * Pins the integration to the least loaded regular worker (once) and sends it the bundle.
   * Registering it again (the dev loop's reload) swaps the code: dispatches sent from now on run
   * the new bundle in a fresh isolate, those in flight finish on the old one, which is then
   * disposed (worker.ts). New code also starts with a clean record: its quarantine and timeout
   * pause are lifted.
   */
  register(integration: string, bundle: SandboxBundle): void {
    const previous = this.routing.bundles.get(integration);
    if (previous !== undefined && previous.hash !== bundle.hash) {
      this.ledger.forget(integration);
      this.breaker.forget(integration);
    }
    this.routing.register(integration, bundle);
  }

  /**
   * Forgets an integration registered only for a while (a published version tried before it is made
   * current): no dispatch reaches it any more, its worker disposes its isolate, its record is cleared.
   */
  unregister(integration: string): void {
    this.routing.unregister(integration);
    this.ledger.forget(integration);
    this.breaker.forget(integration);
  }

  /**
   * Serves guests' platform API calls with `handler`. Set after construction on purpose: the API's
   * own handlers dispatch into the sandbox (setup events), so the API is built after it.
   */
  serveApi(handler: ApiHandler): void {
    this.apiHandler = handler;
  }

  /** Tells every worker (and every restarted one) where the platform API lives. */
  configure(apiEndpoint: string): void {
    this.lifecycle.configure(apiEndpoint);
  }

  /**
   * Runs one envelope. With `stream`, a response body that the integration produces as a stream
   * follows the answer (SupervisedOutcome.body) instead of being collected first.
   */
  dispatch(integration: string, envelope: Envelope, options: { stream?: boolean } = {}): Promise<SupervisedOutcome> {
    return this.dispatcher.run(integration, envelope, options);
  }

  async stop(): Promise<void> {
    this.scheduling.stopSampling();
    this.ladder.stop();
    await this.lifecycle.stop();
    // After the workers: their threads have left the group with them (what is left goes to the parent).
    this.scheduling.closeQuotaGroup();
  }

  /** Makes an environment's JSON text now (a host start's prefill), so its first dispatch only sends it. */
  prepareEnvironment(environment: Envelope['environment']): void {
    this.dispatcher.environmentJson(environment);
  }

  private onMessage(slot: Slot, message: Exclude<FromWorker, { type: 'ready' }>): void {
    switch (message.type) {
      case 'log':
        return this.options.onLog(message);
      case 'api-request':
        return this.answerApi(slot, message.id, message.integration, message.request);
      case 'egress-connect':
        return this.options.onEgressConnect?.({
          integration: message.integration,
          address: message.address,
          port: message.port,
        });
      case 'hog':
        return this.ladder.demote(
          message.integration,
          `executed ${message.cpuMs} ms in one busy period (limit ${this.options.limits.hogCpuMs} ms)`,
          true,
          slot.index,
        );
      case 'count':
        return this.options.onCount?.(message.name, message.integration);
      case 'drained':
        slot.draining.delete(message.integration);
        return;
      case 'isolate-disposed':
        return this.placement.disposed(slot.index, message.integration, message.evicted);
      case 'result':
        return this.dispatcher.settle(slot, message);
    }
  }

  private answerApi(slot: Slot, id: number, integration: string, request: BridgeRequest): void {
    // The worker names the integration whose isolate called; the platform API then requires the
    // token to belong to that integration, so one integration cannot act with another's token.
    const handler = this.apiHandler;
    const answer = handler
      ? handler(integration, request).catch(
          (): BridgeResult<BridgeResponse> => ({ ok: false, code: 'TypeError', message: 'platform API unavailable' }),
        )
      : Promise.resolve<BridgeResult<BridgeResponse>>({
          ok: false,
          code: 'TypeError',
          message: 'platform API unavailable',
        });
    void answer.then((result) => post(slot, { type: 'api-response', id, result }));
  }
}
