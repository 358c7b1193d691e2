// Parent side of the sandbox: forks the worker processes, pins each integration to one, routes
// dispatches, restarts dead workers, fails their in-flight work with 502, and strikes (then
// quarantines) only an integration a crash can be pinned on. It never loads isolated-vm itself.

import type { BridgeRequest, BridgeResponse, BridgeResult, Envelope, RuntimeModuleName } from '../../sandbox-api/runtime/contract.ts';
import type { EgressOptions } from '../bridge/egress-policy.ts';
import { HostError } from '../common/errors.ts';
import type { DispatchFailure, DispatchRequest, DispatchResult, FromWorker, SandboxLimits, ToWorker, WorkerCount } from './messages.ts';
import { CrashLedger } from './crash-ledger.ts';
import { settledBy, untilMoment } from './settled-by.ts';
import { TimeoutBreaker, type TimeoutBreakerOptions } from './timeout-breaker.ts';
import { answeredBody, failBodies, onBodyFrame } from './slot-bodies.ts';
import { post, readyBy, spawnSlot, stopSlot, takePending, type LateVerdict, type Pending, type Slot, type SupervisedOutcome, type WorkerPriority } from './worker-slot.ts';
import { Placement } from './placement.ts';
import { environmentKey } from './held-environments.ts';
import { burnedCpu, demotionTarget, OffenderScheduling, sendingBudget, timeoutIsOffence, type Tier } from '../offenders/index.ts';

/** At least this much on top of the dispatch deadline before the host answers for a silent worker. */
const BACKSTOP_GRACE_MS = 5_000;

export type { SupervisedOutcome } from './worker-slot.ts';

export interface SupervisorOptions {
  workers: number;
  limits: SandboxLimits;
  /** Memory for live isolates across the regular workers, split evenly (other workers get one share each). */
  isolateMemoryMb: number;
  egress: EgressOptions;
  runtimeScript: string;
  /** The runtime's startup-snapshot script, from which each worker builds the snapshot its isolates start from. */
  snapshotScript: string;
  /** The lazily loaded runtime modules' scripts, by name (sent to every worker). */
  runtimeModules: Record<RuntimeModuleName, string>;
  /** The two scripts' source maps, for the workers' stack mapper (stack-map.ts); optional. */
  runtimeMaps?: { runtime: string; snapshot: string };
  crashesBeforeQuarantine: number;
  crashWindowMs: number;
  /** Repeated timeouts pause an integration for a while (timeout-breaker.ts). */
  timeoutBreaker: TimeoutBreakerOptions;
  /**
   * Runs one more worker at the lowest OS priority (nice 19) and moves an integration there the
   * first time it times out, exceeds its memory, hogs the CPU or crashes a worker: an offender then
   * competes for CPU only with other offenders, and the kernel favours everyone else's workers.
   * And one more under the SCHED_IDLE policy, for offenders that burn CPU again there (demotion.ts).
   */
  demoteOffenders: boolean;
  /** The command that lowers the SCHED_IDLE worker (util-linux's `chrt`); tests name a missing one. */
  schedIdleCommand?: string;
  /**
   * The offenders' CPU quota (cpu-quota.ts): all guest threads of the two offenders' workers get at
   * most `percent` of one core together; 0 or absent: none. `mount` is a testing aid (the cpu
   * controller's directory in place of the one /proc/self/mounts names).
   */
  offenderCpuQuota?: { percent: number; mount?: string };
  /** Testing aid: answers whether the machine has no CPU to spare, in place of sampling /proc (spare-cpu.ts). */
  machineSaturated?: () => boolean;
  /** Testing aid: answers whether the SCHED_IDLE worker starved lately (had work, got no CPU), in place of sampling /proc. */
  schedIdleStarved?: () => boolean;
  /**
   * When a worker dies with several integrations at work, none can be blamed: each moves to a
   * worker of its own (at most this many at once; the rest go to the offenders' worker), where
   * its next crash is its own. After `solitaryProbationMs` without one it returns to a regular worker.
   */
  solitary: { maxWorkers: number; probationMs: number };
  /** Console output of integrations and supervisor notices, one line each. */
  onLog(line: { integration: string; eventIds: string[]; level: string; text: string }): void;
  onNotice(level: 'info' | 'warn' | 'error', message: string): void;
  /** The connect audit: every destination a guest fetch pointed a socket at. */
  onEgressConnect?(event: { integration: string; address: string; port: number }): void;
  /** Counted events for the metrics: isolate starts and evictions, egress refusals, worker restarts, quarantines, throttles. */
  onCount?(name: SandboxCountName, integration?: string): void;
}

export type SandboxCountName = WorkerCount['name'] | 'worker_restart' | 'quarantine' | 'throttle' | 'demotion' | 'sched_idle_demotion' | 'sched_idle_return' | 'start_timeout';
/** What a worker needs of an integration's bundle: the code, its hash and its source map. */
export interface SandboxBundle {
  code: string;
  hash: string;
  map?: string;
}

/** Answers a guest's call to the platform API; `integration` is the one whose isolate made it. */
export type ApiHandler = (integration: string, request: BridgeRequest) => Promise<BridgeResult<BridgeResponse>>;

const FAILURE_ERRORS: Record<DispatchFailure, (message: string) => HostError> = {
  timeout: (message) => new HostError('ERR_SANDBOX_TIMEOUT', message),
  memory: (message) => new HostError('ERR_SANDBOX_CRASHED', message),
  'bad-response': (message) => new HostError('ERR_SANDBOX_BAD_RESPONSE', message),
  'not-registered': () => new HostError('ERR_SANDBOX_UNAVAILABLE', 'the integration is not loaded'),
  'isolate-reset': (message) => new HostError('ERR_SANDBOX_CRASHED', message),
};

function registerMessage(integration: string, bundle: SandboxBundle): ToWorker {
  return { type: 'register', integration, bundleCode: bundle.code, bundleHash: bundle.hash, ...(bundle.map !== undefined ? { bundleMap: bundle.map } : {}) };
}

export class Supervisor {
  /**
   * Regular workers 0..n-1, the offenders' worker n (nice 19), the SCHED_IDLE worker n+1, then
   * solitary workers (created on demand). Without demotion, solitary workers follow the regular ones.
   */
  private readonly slots = new Map<number, Slot>();
  private readonly pins = new Map<string, number>();
  private readonly bundles = new Map<string, SandboxBundle>();
  private readonly environmentTexts = new WeakMap<object, string>();
  /** Integrations on a worker of their own, with the timer that ends their probation. */
  private readonly solitary = new Map<string, { index: number; probation: NodeJS.Timeout }>();
  private nextSolitaryIndex: number;
  private readonly ledger: CrashLedger;
  private readonly breaker: TimeoutBreaker;
  private nextId = 1;
  private stopped = false;
  /** Whether the SCHED_IDLE worker could be lowered; once it could not, it is gone for good. */
  private schedIdleAvailable = true;
  /** The offenders' CPU-quota group and the spare-CPU verdicts (host/offenders/). */
  private readonly scheduling: OffenderScheduling;
  private readonly options: SupervisorOptions;
  private apiEndpoint: string | null = null;
  private apiHandler: ApiHandler | null = null;

  private readonly placement: Placement;
  /** Integrations with a dispatch answered at its deadline whose worker's verdict is still due (answerAtDeadline). */
  private readonly verdictsDue = new Map<string, Promise<void>>();

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.placement = new Placement(Math.max(1, options.workers) + (options.demoteOffenders ? 2 : 0), Math.max(1, options.workers));
    this.ledger = new CrashLedger(options.crashesBeforeQuarantine, options.crashWindowMs);
    this.breaker = new TimeoutBreaker(options.timeoutBreaker);
    this.scheduling = new OffenderScheduling(options);
    this.nextSolitaryIndex = this.regularCount + (options.demoteOffenders ? 2 : 0);
  }

  /** Where the SCHED_IDLE worker sits when demotion is on (whether or not it could be lowered). */
  private get schedIdleIndex(): number | undefined {
    return this.options.demoteOffenders ? this.regularCount + 1 : undefined;
  }

  private get regularCount(): number {
    return Math.max(1, this.options.workers);
  }

  async start(): Promise<void> {
    for (let index = 0; index < this.regularCount; index++) this.slots.set(index, this.spawn(index));
    if (this.options.demoteOffenders) {
      this.scheduling.openQuotaGroup();
      this.slots.set(this.regularCount, this.spawn(this.regularCount));
      this.slots.set(this.regularCount + 1, this.spawn(this.regularCount + 1)); // the SCHED_IDLE worker
      this.scheduling.startSampling({
        present: () => this.schedIdleWorker !== undefined,
        pid: () => this.workerPid(this.schedIdleIndex!),
        hasWork: () => (this.slots.get(this.schedIdleWorker!)?.pending.size ?? 0) > 0,
      });
    }
    await Promise.all([...this.slots.values()].map((slot) => slot.ready));
  }

  /** The directory of this host's offenders' CPU group, while it has one (tests, diagnostics). */
  get offendersCpuGroup(): string | undefined {
    return this.scheduling.quotaGroupDir;
  }

  /** How many sandbox workers are running and ready, of how many (the readiness route). */
  workersUp(): { up: number; total: number } {
    const slots = [...this.slots.values()];
    return { up: this.stopped ? 0 : slots.filter((slot) => slot.up).length, total: slots.length };
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
    return this.options.demoteOffenders ? this.regularCount : undefined;
  }

  /**
   * The index of the SCHED_IDLE worker for offenders that burned CPU again on the offenders' worker;
   * undefined without demotion, or once the policy turned out to be unavailable (then they stay on
   * the nice-19 worker).
   */
  get schedIdleWorker(): number | undefined {
    return this.schedIdleAvailable ? this.schedIdleIndex : undefined;
  }

  get workerCount(): number {
    return this.slots.size;
  }

  /**
   * Resolves once the workers' verdicts on `integration`'s dispatches answered at their deadline have
   * all arrived (answerAtDeadline): what they count (timeouts, moves) is then in place. For tests
   * and diagnostics; the integration's own next dispatch waits for them by itself (until its own deadline).
   */
  verdictsArrived(integration: string): Promise<void> {
    return this.verdictsDue.get(integration) ?? Promise.resolve();
  }

  /** Worker process ids in worker order (solitary workers last), for tests and diagnostics. */
  workerPids(): number[] {
    return [...this.slots.entries()].sort(([a], [b]) => a - b).map(([, slot]) => slot.child.pid ?? -1);
  }

  /** The process id of worker `index` (-1 when there is none). */
  workerPid(index: number): number {
    return this.slots.get(index)?.child.pid ?? -1;
  }

  workerOf(integration: string): number | undefined {
    return this.pins.get(integration);
  }

  /** Live isolates per regular and offenders' worker as the supervisor knows them (diagnostics and tests). */
  liveIsolateCounts(): number[] {
    return this.placement.liveCounts();
  }

  /** Whether the integration runs on a worker of its own after an unattributable crash. */
  isSolitary(integration: string): boolean {
    return this.solitary.has(integration);
  }

  /** Dispatches in flight on every worker (setup events included), or of one integration; for tests and diagnostics. */
  inFlightCount(integration?: string): number {
    let count = 0;
    for (const slot of this.slots.values()) {
      for (const pending of slot.pending.values()) if (integration === undefined || pending.integration === integration) count++;
    }
    return count;
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
    const previous = this.bundles.get(integration);
    if (previous !== undefined && previous.hash !== bundle.hash) {
      this.ledger.forget(integration);
      this.breaker.forget(integration);
    }
    this.bundles.set(integration, { code: bundle.code, hash: bundle.hash, ...(bundle.map !== undefined ? { map: bundle.map } : {}) });
    let index = this.pins.get(integration);
    if (index === undefined) {
      index = this.leastLoadedRegular();
      this.pins.set(integration, index);
    }
    this.send(index, registerMessage(integration, bundle));
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
    this.apiEndpoint = apiEndpoint;
    for (const slot of this.slots.values()) post(slot, { type: 'configure', apiEndpoint });
  }

  /**
   * Runs one envelope. With `stream`, a response body that the integration produces as a stream
   * follows the answer (SupervisedOutcome.body) instead of being collected first.
   */
  async dispatch(integration: string, envelope: Envelope, options: { stream?: boolean } = {}): Promise<SupervisedOutcome> {
    // On the offenders' workers the host keeps the deadline from here, the dispatch's arrival:
    // what it waits for first (the verdict below, a restarting worker) comes out of that time, and
    // the worker gets what is left of it (sendingBudget).
    const deadlineAt = performance.now() + this.options.limits.dispatchTimeoutMs;
    // An earlier dispatch was answered at its deadline by the host before its worker's verdict
    // (answerAtDeadline): that verdict (a timeout counted or not) decides whether this one runs,
    // exactly as when the host waited for it. It comes from an offenders' worker, whose main
    // thread can be held up (a core, a lock a throttled guest thread holds): this request waits
    // for it only until its own deadline.
    const due = this.verdictsDue.get(integration);
    if (due !== undefined && !(await settledBy(due, deadlineAt))) {
      throw this.unsent(integration, envelope.event.eventId, 'the verdict on its previous request was still on its way from its sandbox worker');
    }
    if (this.ledger.isQuarantined(integration)) {
      throw new HostError('ERR_INTEGRATION_QUARANTINED', `integration "${integration}" is quarantined after crashing its sandbox repeatedly; restart the host to lift it`);
    }
    const pausedMs = this.breaker.retryAfterMs(integration);
    if (pausedMs > 0) {
      throw new HostError('ERR_INTEGRATION_THROTTLED', `integration "${integration}" keeps running past its deadline and is paused; retry in ${Math.ceil(pausedMs / 1000)} s`);
    }
    if (this.stopped || !this.pins.has(integration)) throw new HostError('ERR_SANDBOX_UNAVAILABLE', `integration "${integration}" is not loaded`);
    // A cold integration on a worker that is out of isolate memory starts where there is room.
    const pinned = this.pins.get(integration)!;
    const roomier = this.placement.target(pinned, integration);
    if (roomier !== undefined && !this.inFlight(pinned, integration)) this.move(integration, roomier);
    // SCHED_IDLE runs only on CPU nobody else wants: once its worker had work and got none (normal
    // work saturates the machine), an integration there would not answer at all, so it goes back
    // to nice 19 (a share, if small). Burning CPU there again sends it back down once the hold is over.
    if (pinned === this.schedIdleWorker && this.schedIdleStarved && !this.inFlight(pinned, integration)) {
      this.move(integration, this.offenderWorker!);
      this.options.onNotice('warn', `the SCHED_IDLE sandbox worker got no CPU while it had work (the machine has none to spare): "${integration}" moved back to the low-priority (nice 19) worker`);
      this.options.onCount?.('sched_idle_return', integration);
    }
    // The worker enforces the deadline, but it may be starved of CPU (offenders run at the lowest
    // priority) or restarting: the host answers by the backstop whatever happens there (and on the
    // offenders' workers at the deadline itself: answerAtDeadline).
    const answerBy = performance.now() + this.backstopMs;
    // A worker being restarted is replaced in its slot, and the integration may move meanwhile:
    // wait for whichever process holds its slot now.
    let current = this.slotOf(integration);
    while (current !== undefined) {
      await readyBy(current, answerBy);
      const now = this.slotOf(integration);
      if (now === current) break;
      current = now;
    }
    if (this.stopped || current === undefined) throw new HostError('ERR_SANDBOX_UNAVAILABLE', 'the host is shutting down');
    const slot = current;
    const id = this.nextId++;
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
    const message: DispatchRequest = {
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
    let budget: number | undefined;
    if (slot.priority !== 'normal') {
      const left = sendingBudget(deadlineAt, performance.now(), this.options.limits.dispatchTimeoutMs);
      if (left === null) {
        // Most of its deadline went on waiting (for a verdict, a restart): never sent, answered at the deadline.
        await untilMoment(deadlineAt);
        throw this.unsent(integration, event.eventId, `the host held the request: waiting for sandbox worker ${slot.index} (a verdict on its previous request, a restart) took more than half of it, so it was never sent`);
      }
      budget = left;
      message.deadlineMs = left;
    }
    return new Promise<SupervisedOutcome>((resolve, reject) => {
      const backstop = setTimeout(() => this.abandon(slot, id), Math.max(0, answerBy - performance.now()));
      const pending: Pending = { integration, eventId: event.eventId, resolve, reject, backstop };
      if (budget !== undefined) pending.deadline = setTimeout(() => this.answerAtDeadline(slot, id), budget);
      slot.pending.set(id, pending);
      post(slot, message);
      slot.heldEnvironments.record(key, environment);
    });
  }

  /**
   * When the host stops waiting for a worker's answer: twice the deadline, and at least the
   * deadline plus BACKSTOP_GRACE_MS (a regular worker's deadline starts only once the isolate's
   * realm is built, so a cold start needs room; an offenders' worker's runs from the dispatch's
   * arrival). Normally the worker answers long before.
   */
  private get backstopMs(): number {
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
  private answerAtDeadline(slot: Slot, id: number): void {
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
      this.options.onLog({ integration: pending.integration, eventIds: [pending.eventId], level: 'warn', text: `its answer arrived ${Math.round(performance.now() - answeredAt)} ms after the host had answered 504 at its deadline of ${this.options.limits.dispatchTimeoutMs} ms: dropped` });
      deliver({ logs: outcome.logs, durationMs: outcome.durationMs });
    };
    pending.reject = (error) => {
      const { logs, durationMs } = error as { logs?: unknown; durationMs?: unknown };
      deliver({ logs: Array.isArray(logs) ? (logs as LateVerdict['logs']) : [], ...(typeof durationMs === 'number' ? { durationMs } : {}) });
    };
    this.awaitVerdict(pending.integration, verdict);
    answer(Object.assign(this.timeoutError(), { logs: [], verdict }));
  }

  /** Holds `integration`'s next dispatches until `verdict` (and any other still due) has arrived, or their own deadline passed. */
  private awaitVerdict(integration: string, verdict: Promise<unknown>): void {
    const earlier = this.verdictsDue.get(integration);
    const all = earlier === undefined ? verdict.then(() => undefined) : Promise.all([earlier, verdict]).then(() => undefined);
    this.verdictsDue.set(integration, all);
    void all.then(() => {
      if (this.verdictsDue.get(integration) === all) this.verdictsDue.delete(integration);
    });
  }

  /** The backstop passed: answer 504 for the silent worker, count it as a timeout, tell the worker. */
  private abandon(slot: Slot, id: number): void {
    const pending = takePending(slot, id);
    if (pending === undefined) return;
    const answered = pending.answered === true ? 'the host had answered 504 at the deadline; counted as a timeout' : 'answered 504 for it';
    this.options.onNotice('warn', `sandbox worker ${slot.index} did not answer a dispatch of "${pending.integration}" within ${this.backstopMs} ms: ${answered}`);
    post(slot, { type: 'abandon', id });
    this.countTimeout(pending.integration, false, slot.index);
    pending.reject(Object.assign(this.timeoutError(), { logs: [] }));
  }

  /** The 504 the host itself answers, at the deadline or at the backstop. */
  private timeoutError(): HostError {
    return new HostError('ERR_SANDBOX_TIMEOUT', `the integration did not answer within ${this.options.limits.dispatchTimeoutMs} ms`);
  }

  /**
   * A dispatch ran past its deadline: demote the integration (`burned`: its isolate executed rather
   * than waited), and pause it if it keeps doing so.
   */
  private countTimeout(integration: string, burned: boolean, from: number): void {
    this.demote(integration, 'ran past its deadline', burned, from);
    if (this.breaker.record(integration)) {
      const { limit, windowMs, cooldownMs } = this.options.timeoutBreaker;
      this.options.onNotice('warn', `integration "${integration}" ran past its deadline ${limit} times within ${windowMs / 1000} s: paused for ${cooldownMs / 1000} s`);
      this.options.onCount?.('throttle', integration);
    }
  }

  /**
   * A deadline passed on an offenders' worker before any of the integration's code ran (its realm
   * was still being built on threads the offenders' quota holds, or the host still waited for that
   * worker's verdict on the integration's previous request): answered 504 like any timeout, but
   * neither counted by the breaker nor a reason to demote: the slowness is the host's (and the
   * other offenders'), and counting it would pause or push down an integration for what it never
   * did. A realm being built is kept for its next dispatch (isolate.ts), which runs its code and counts.
   */
  private startTimeout(integration: string, why: string, eventId?: string): string {
    this.options.onCount?.('start_timeout', integration);
    const text = `its deadline of ${this.options.limits.dispatchTimeoutMs} ms passed while ${why} (none of its code ran): answered 504, not counted as its timeout`;
    this.options.onLog({ integration, eventIds: eventId === undefined ? [] : [eventId], level: 'warn', text });
    return text;
  }

  /** The 504 of an offenders' request the host never sent (a start timeout); its event's row says why. */
  private unsent(integration: string, eventId: string, why: string): HostError {
    const text = this.startTimeout(integration, why, eventId);
    return Object.assign(this.timeoutError(), { logs: [{ level: 'warn', text }] });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.scheduling.stopSampling();
    for (const { probation } of this.solitary.values()) clearTimeout(probation);
    await Promise.all([...this.slots.values()].map((slot) => stopSlot(slot, 'the host is shutting down')));
    // After the workers: their threads have left the group with them (what is left goes to the parent).
    this.scheduling.closeQuotaGroup();
  }

  /** Makes an environment's JSON text now (a host start's prefill), so its first dispatch only sends it. */
  prepareEnvironment(environment: Envelope['environment']): void {
    this.environmentJson(environment);
  }

  /** An environment's JSON text, made once per environment object (the dispatcher reuses them). */
  private environmentJson(environment: Envelope['environment']): string {
    let json = this.environmentTexts.get(environment);
    if (json === undefined) {
      json = JSON.stringify(environment);
      this.environmentTexts.set(environment, json);
    }
    return json;
  }

  private inFlight(worker: number, integration: string): boolean {
    for (const pending of this.slots.get(worker)?.pending.values() ?? []) if (pending.integration === integration) return true;
    return false;
  }

  private slotOf(integration: string): Slot | undefined {
    const index = this.pins.get(integration);
    return index === undefined ? undefined : this.slots.get(index);
  }

  private send(index: number, message: ToWorker): void {
    const slot = this.slots.get(index);
    if (slot !== undefined) post(slot, message);
  }

  /** New and returning integrations go to the least loaded regular worker, never an offenders' one. */
  private leastLoadedRegular(): number {
    const load = Array.from({ length: this.regularCount }, () => 0);
    for (const pinned of this.pins.values()) if (pinned < this.regularCount) load[pinned]++;
    return load.indexOf(Math.min(...load));
  }

  /** Re-pins an integration: its next dispatches run on `target`; what is in flight finishes where it is. */
  private move(integration: string, target: number): void {
    const bundle = this.bundles.get(integration);
    const from = this.pins.get(integration);
    if (bundle === undefined || from === target) return;
    this.pins.set(integration, target);
    if (from !== undefined) {
      this.slots.get(from)?.heldEnvironments.forgetIntegration(integration);
      this.send(from, { type: 'unregister', integration });
    }
    this.send(target, registerMessage(integration, bundle));
  }

  /** Where the integration runs now, for the demotion ladder. */
  private tierOf(integration: string): Tier {
    if (this.solitary.has(integration)) return 'solitary';
    const pinned = this.pins.get(integration);
    if (pinned !== undefined && pinned === this.offenderWorker) return 'nice19';
    if (pinned !== undefined && pinned === this.schedIdleIndex) return 'sched-idle';
    return 'regular';
  }

  /**
   * Moves an offender one step down the ladder (demotion.ts): from a regular worker to the nice-19
   * offenders' worker; from there, when `cpuEvidence` says it burned CPU again, to the SCHED_IDLE one.
   */
  private demote(integration: string, why: string, cpuEvidence: boolean, from: number): void {
    if (this.offenderWorker === undefined || !this.bundles.has(integration)) return;
    // Only CPU burnt on the offenders' worker itself sends it further: one offence on a regular
    // worker can be reported twice (the hog sampler, then the deadline), or arrive after the move.
    // While the machine has no CPU to spare, or SCHED_IDLE starved lately, it would be silenced there: it stays at nice 19.
    const target = demotionTarget(this.tierOf(integration), cpuEvidence && from === this.offenderWorker, this.schedIdleWorker !== undefined && !this.machineSaturated && !this.schedIdleStarved);
    if (target === 'nice19') {
      this.move(integration, this.offenderWorker);
      this.options.onNotice('warn', `integration "${integration}" ${why}: moved to the low-priority sandbox worker`);
      this.options.onCount?.('demotion', integration);
    } else if (target === 'sched-idle') {
      this.move(integration, this.schedIdleWorker!);
      this.options.onNotice('warn', `integration "${integration}" ${why} and burned CPU again on the low-priority worker: moved to the idle-priority (SCHED_IDLE) sandbox worker`);
      this.options.onCount?.('sched_idle_demotion', integration);
    }
  }

  /**
   * The SCHED_IDLE worker could not be lowered (no chrt, a kernel or sandbox that refuses it): said
   * once, and the worker goes away; its integrations and later CPU offenders stay at nice 19.
   */
  private schedIdleUnavailable(slot: Slot, problem: string): void {
    if (!this.schedIdleAvailable || this.slots.get(slot.index) !== slot) return;
    this.schedIdleAvailable = false;
    this.options.onNotice('warn', `SCHED_IDLE is not available (${problem}): offenders that keep burning CPU stay on the nice-19 sandbox worker, where a spinning one can still delay its neighbours' wake-ups by a time slice`);
    this.slots.delete(slot.index);
    for (const [integration, pinned] of [...this.pins]) if (pinned === slot.index) this.move(integration, this.offenderWorker!);
    void stopSlot(slot, 'the SCHED_IDLE worker was retired');
  }

  /** Gives a crash suspect a worker of its own, so that its next crash can be pinned on it. */
  private isolateSuspect(integration: string): void {
    if (this.solitary.has(integration) || !this.bundles.has(integration)) return;
    if (this.solitary.size >= this.options.solitary.maxWorkers) {
      this.demote(integration, 'was at work when its sandbox worker died (no worker of its own is free)', false, this.pins.get(integration)!);
      return;
    }
    const index = this.nextSolitaryIndex++;
    this.slots.set(index, this.spawn(index));
    this.solitary.set(integration, { index, probation: this.probation(integration) });
    this.move(integration, index);
    this.options.onNotice('warn', `integration "${integration}" was at work when its sandbox worker died: moved to a worker of its own (${index}) until it runs ${this.options.solitary.probationMs / 1000} s without a crash`);
  }

  private probation(integration: string): NodeJS.Timeout {
    return setTimeout(() => void this.endProbation(integration), this.options.solitary.probationMs).unref();
  }

  /** A suspect that ran its probation without crashing returns to a regular worker. */
  private async endProbation(integration: string): Promise<void> {
    const entry = this.solitary.get(integration);
    if (entry === undefined || this.stopped) return;
    this.solitary.delete(integration);
    if (!this.ledger.isQuarantined(integration)) {
      this.move(integration, this.leastLoadedRegular());
      this.options.onNotice('info', `integration "${integration}" ran ${this.options.solitary.probationMs / 1000} s on its own without a crash: back on a regular worker`);
    }
    const slot = this.slots.get(entry.index);
    this.slots.delete(entry.index);
    // In-flight work on it finishes first (the integration no longer dispatches there).
    if (slot !== undefined) {
      while (slot.pending.size > 0 && !this.stopped) await new Promise((resolve) => setTimeout(resolve, 100));
      await stopSlot(slot, 'the worker was retired');
    }
  }

  private spawn(index: number): Slot {
    const priority: WorkerPriority = index < this.regularCount ? 'normal' : index === this.schedIdleIndex ? 'sched-idle' : 'nice19';
    const slot = spawnSlot(
      index,
      priority,
      {
        onMessage: (from, message) => this.onMessage(from, message),
        onBodyFrame: (from, kind, id, _value, payload) => onBodyFrame(from, kind, id, payload),
        onExit: (from, code, signal) => this.onExit(from, code, signal),
        onError: (_from, error) => this.options.onNotice('error', `sandbox worker ${index} error: ${error.message}`),
        onSchedIdle: (from, problem) => {
          if (problem !== null) this.schedIdleUnavailable(from, problem);
        },
      },
    );
    const isolateBudgetMb = Math.max(1, Math.floor(this.options.isolateMemoryMb / this.regularCount));
    // Only the two offenders' workers go under the quota (not solitary suspects, not regular workers).
    const quotaTasks = index === this.offenderWorker || index === this.schedIdleIndex ? this.scheduling.quotaTasks : undefined;
    post(slot, { type: 'init', runtimeScript: this.options.runtimeScript, snapshotScript: this.options.snapshotScript, runtimeModules: this.options.runtimeModules, ...(this.options.runtimeMaps !== undefined ? { runtimeMaps: this.options.runtimeMaps } : {}), limits: this.options.limits, isolateBudgetMb, egress: this.options.egress, priority, ...(this.options.schedIdleCommand !== undefined ? { schedIdleCommand: this.options.schedIdleCommand } : {}), ...(quotaTasks !== undefined ? { offenderCpuQuotaTasks: quotaTasks } : {}) });
    if (this.apiEndpoint !== null) post(slot, { type: 'configure', apiEndpoint: this.apiEndpoint });
    for (const [integration, pinned] of this.pins) {
      const bundle = this.bundles.get(integration);
      if (pinned === index && bundle) post(slot, registerMessage(integration, bundle));
    }
    return slot;
  }

  private onMessage(slot: Slot, message: Exclude<FromWorker, { type: 'ready' }>): void {
    switch (message.type) {
      case 'log':
        return this.options.onLog(message);
      case 'api-request':
        return this.answerApi(slot, message.id, message.integration, message.request);
      case 'egress-connect':
        return this.options.onEgressConnect?.({ integration: message.integration, address: message.address, port: message.port });
      case 'hog':
        return this.demote(message.integration, `executed ${message.cpuMs} ms in one busy period (limit ${this.options.limits.hogCpuMs} ms)`, true, slot.index);
      case 'count':
        return this.options.onCount?.(message.name, message.integration);
      case 'drained':
        slot.draining.delete(message.integration);
        return;
      case 'isolate-disposed':
        return this.placement.disposed(slot.index, message.integration, message.evicted);
      case 'result':
        return this.settle(slot, message);
    }
  }

  private answerApi(slot: Slot, id: number, integration: string, request: BridgeRequest): void {
    // The worker names the integration whose isolate called; the platform API then requires the
    // token to belong to that integration, so one integration cannot act with another's token.
    const handler = this.apiHandler;
    const answer = handler
      ? handler(integration, request).catch((): BridgeResult<BridgeResponse> => ({ ok: false, code: 'TypeError', message: 'platform API unavailable' }))
      : Promise.resolve<BridgeResult<BridgeResponse>>({ ok: false, code: 'TypeError', message: 'platform API unavailable' });
    void answer.then((result) => post(slot, { type: 'api-response', id, result }));
  }

  private settle(slot: Slot, result: DispatchResult): void {
    const pending = takePending(slot, result.id);
    if (pending === undefined) return;
    if (result.draining) slot.draining.add(pending.integration);
    else slot.draining.delete(pending.integration);
    for (const line of result.logs) this.options.onLog({ integration: pending.integration, eventIds: [pending.eventId], ...line });
    if (result.ok) {
      this.placement.started(slot.index, pending.integration);
      const outcome: SupervisedOutcome = { response: result.response, logs: result.logs, durationMs: result.durationMs };
      if (result.streamed === true) outcome.body = answeredBody(slot, result.id);
      return pending.resolve(outcome);
    }
    if (result.failure === 'memory') {
      this.strike(pending.integration, 'exceeded its memory limit');
      this.demote(pending.integration, 'exceeded its memory limit', burnedCpu(result.executedMs), slot.index);
    }
    if (result.failure === 'timeout' && !timeoutIsOffence(result)) this.startTimeout(pending.integration, `sandbox worker ${slot.index} was still preparing its isolate`);
    else if (result.failure === 'timeout') this.countTimeout(pending.integration, burnedCpu(result.executedMs), slot.index);
    // The worker's own measure of the dispatch travels with the error, as with a success.
    pending.reject(Object.assign(FAILURE_ERRORS[result.failure](result.message), { logs: result.logs, durationMs: result.durationMs }));
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.stopping || this.stopped || this.slots.get(slot.index) !== slot) return;
    slot.markReady();
    this.options.onCount?.('worker_restart');
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    // Everyone at work on it: dispatches in flight and waitUntil work after a response.
    const suspects = new Set([...[...slot.pending.values()].map((pending) => pending.integration), ...slot.draining]);
    this.options.onNotice('error', `sandbox worker ${slot.index} died (${how}) with ${slot.pending.size} request(s) in flight${suspects.size ? ` and ${[...suspects].join(', ')} at work` : ''}; restarting it`);
    for (const id of [...slot.pending.keys()]) {
      takePending(slot, id)?.reject(new HostError('ERR_SANDBOX_CRASHED', 'the sandbox running this integration crashed while handling the request'));
    }
    failBodies(slot, 'the sandbox running this integration crashed while it sent its response body');
    slot.draining.clear();
    this.placement.restarted(slot.index);
    const solitaryOwner = [...this.solitary.entries()].find(([, entry]) => entry.index === slot.index)?.[0];
    if (solitaryOwner !== undefined) {
      // Alone on its worker: the crash is its own. Probation starts over.
      const entry = this.solitary.get(solitaryOwner)!;
      clearTimeout(entry.probation);
      this.strike(solitaryOwner, 'crashed its sandbox worker');
      if (this.ledger.isQuarantined(solitaryOwner)) {
        this.solitary.delete(solitaryOwner);
        this.slots.delete(slot.index);
        return;
      }
      entry.probation = this.probation(solitaryOwner);
    } else if (suspects.size === 1) {
      const [culprit] = suspects;
      this.strike(culprit, 'crashed its sandbox worker');
      this.demote(culprit, 'was alone at work when its sandbox worker died', false, slot.index);
    } else if (suspects.size > 1) {
      // Any of them could have done it: none is struck, each is watched alone from now on.
      this.options.onNotice('warn', `the crash of sandbox worker ${slot.index} cannot be pinned on one of ${[...suspects].join(', ')}: none is counted against, each runs alone for a while`);
      for (const integration of suspects) this.isolateSuspect(integration);
    }
    this.slots.set(slot.index, this.spawn(slot.index));
  }

  private strike(integration: string, what: string): void {
    if (this.ledger.record(integration)) {
      this.options.onCount?.('quarantine', integration);
      this.options.onNotice('error', `integration "${integration}" ${what} ${this.options.crashesBeforeQuarantine} times within ${this.options.crashWindowMs / 1000} s: quarantined until the host restarts`);
    }
  }
}
