// Parent side of the sandbox: forks N worker processes, pins each integration to one, routes
// dispatches, restarts dead workers, fails their in-flight work with 502 and quarantines an
// integration that keeps killing workers. It never loads isolated-vm itself.

import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BridgeRequest, BridgeResponse, BridgeResult, Envelope, SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import type { EgressOptions } from '../bridge/egress-policy.ts';
import { HostError } from '../common/errors.ts';
import type { CapturedLog, DispatchFailure, DispatchResult, FromWorker, SandboxLimits, ToWorker } from './messages.ts';
import { CrashLedger } from './crash-ledger.ts';
import { TimeoutBreaker, type TimeoutBreakerOptions } from './timeout-breaker.ts';

const WORKER_ENTRY = fileURLToPath(new URL('./worker.ts', import.meta.url));

export interface SupervisorOptions {
  workers: number;
  limits: SandboxLimits;
  egress: EgressOptions;
  runtimeScript: string;
  crashesBeforeQuarantine: number;
  crashWindowMs: number;
  /** Repeated timeouts pause an integration for a while (timeout-breaker.ts). */
  timeoutBreaker: TimeoutBreakerOptions;
  /**
   * Runs one more worker at the lowest OS priority and moves an integration there the first time
   * it times out, exceeds its memory or is in flight when a worker dies: an offender then competes
   * for CPU only with other offenders, and the kernel favours everyone else's workers.
   */
  demoteOffenders: boolean;
  /** Console output of integrations and supervisor notices, one line each. */
  onLog(line: { integration: string; eventIds: string[]; level: string; text: string }): void;
  onNotice(level: 'info' | 'warn' | 'error', message: string): void;
  /** The connect audit: every destination a guest fetch pointed a socket at. */
  onEgressConnect?(event: { integration: string; address: string; port: number }): void;
}

/** Answers a guest's call to the platform API; `integration` is the one whose isolate made it. */
export type ApiHandler = (integration: string, request: BridgeRequest) => Promise<BridgeResult<BridgeResponse>>;

export interface SupervisedOutcome {
  response: SandboxResponse;
  logs: CapturedLog[];
  durationMs: number;
}

interface Pending {
  integration: string;
  eventId: string;
  resolve(outcome: SupervisedOutcome): void;
  reject(error: HostError): void;
}

interface Slot {
  index: number;
  child: ChildProcess;
  /** Environment objects this worker process already holds (a restarted worker starts empty). */
  sentEnvironments: WeakSet<object>;
  ready: Promise<void>;
  /** Settles `ready`; also called when the process dies first, so waiters move to its replacement. */
  markReady(): void;
  pending: Map<number, Pending>;
  stopping: boolean;
}

const FAILURE_ERRORS: Record<DispatchFailure, (message: string) => HostError> = {
  timeout: (message) => new HostError('ERR_SANDBOX_TIMEOUT', message),
  memory: (message) => new HostError('ERR_SANDBOX_CRASHED', message),
  'bad-response': (message) => new HostError('ERR_SANDBOX_BAD_RESPONSE', message),
  'not-registered': () => new HostError('ERR_SANDBOX_UNAVAILABLE', 'the integration is not loaded'),
  'isolate-reset': (message) => new HostError('ERR_SANDBOX_CRASHED', message),
};

export class Supervisor {
  private readonly slots: Slot[] = [];
  private readonly pins = new Map<string, number>();
  private readonly bundles = new Map<string, { code: string; hash: string }>();
  private readonly ledger: CrashLedger;
  private readonly breaker: TimeoutBreaker;
  private nextId = 1;
  private stopped = false;
  private readonly options: SupervisorOptions;
  private apiEndpoint: string | null = null;
  private apiHandler: ApiHandler | null = null;

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.ledger = new CrashLedger(options.crashesBeforeQuarantine, options.crashWindowMs);
    this.breaker = new TimeoutBreaker(options.timeoutBreaker);
  }

  async start(): Promise<void> {
    const count = Math.max(1, this.options.workers);
    for (let index = 0; index < count; index++) this.slots.push(this.spawn(index));
    if (this.options.demoteOffenders) this.slots.push(this.spawn(count));
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  /** The index of the low-priority worker for offenders, if there is one. */
  get offenderWorker(): number | undefined {
    return this.options.demoteOffenders ? Math.max(1, this.options.workers) : undefined;
  }

  /** Moves an integration to the low-priority worker (once); its next dispatches run there. */
  private demote(integration: string, why: string): void {
    const target = this.offenderWorker;
    const bundle = this.bundles.get(integration);
    if (target === undefined || bundle === undefined || this.pins.get(integration) === target) return;
    const from = this.pins.get(integration);
    this.pins.set(integration, target);
    if (from !== undefined) this.post(this.slots[from], { type: 'unregister', integration });
    this.post(this.slots[target], { type: 'register', integration, bundleCode: bundle.code, bundleHash: bundle.hash });
    this.options.onNotice('warn', `integration "${integration}" ${why}: moved to the low-priority sandbox worker`);
  }

  get workerCount(): number {
    return this.slots.length;
  }

  /** Worker process ids, for tests and diagnostics. */
  workerPids(): number[] {
    return this.slots.map((slot) => slot.child.pid ?? -1);
  }

  workerOf(integration: string): number | undefined {
    return this.pins.get(integration);
  }

  isQuarantined(integration: string): boolean {
    return this.ledger.isQuarantined(integration);
  }

  /** Pins the integration to the least loaded worker and sends it the bundle. */
  register(integration: string, bundle: { code: string; hash: string }): void {
    this.bundles.set(integration, bundle);
    let index = this.pins.get(integration);
    if (index === undefined) {
      // New integrations go to the least loaded regular worker, never to the offenders' one.
      const regular = Math.max(1, this.options.workers);
      const load = Array.from({ length: regular }, () => 0);
      for (const pinned of this.pins.values()) if (pinned < regular) load[pinned]++;
      index = load.indexOf(Math.min(...load));
      this.pins.set(integration, index);
    }
    this.post(this.slots[index], { type: 'register', integration, bundleCode: bundle.code, bundleHash: bundle.hash });
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
    for (const slot of this.slots) this.post(slot, { type: 'configure', apiEndpoint });
  }

  async dispatch(integration: string, envelope: Envelope): Promise<SupervisedOutcome> {
    if (this.ledger.isQuarantined(integration)) {
      throw new HostError('ERR_INTEGRATION_QUARANTINED', `integration "${integration}" is quarantined after crashing its sandbox repeatedly; restart the host to lift it`);
    }
    const pausedMs = this.breaker.retryAfterMs(integration);
    if (pausedMs > 0) {
      throw new HostError('ERR_INTEGRATION_THROTTLED', `integration "${integration}" keeps running past its deadline and is paused; retry in ${Math.ceil(pausedMs / 1000)} s`);
    }
    const index = this.pins.get(integration);
    if (index === undefined || this.stopped) throw new HostError('ERR_SANDBOX_UNAVAILABLE', `integration "${integration}" is not loaded`);
    // A worker being restarted is replaced in its slot; wait for whichever process holds it now.
    let current = this.slots[index];
    await current.ready;
    while (this.slots[index] !== current) {
      current = this.slots[index];
      await current.ready;
    }
    if (this.stopped) throw new HostError('ERR_SANDBOX_UNAVAILABLE', 'the host is shutting down');
    const id = this.nextId++;
    return new Promise<SupervisedOutcome>((resolve, reject) => {
      current.pending.set(id, { integration, eventId: envelope.event.eventId, resolve, reject });
      const { event, fetchBody, environment } = envelope;
      const environmentKey = String(event.installationId ?? '');
      const known = current.sentEnvironments.has(environment);
      this.post(current, { type: 'dispatch', id, integration, event, fetchBody, environmentKey, ...(known ? {} : { environment }) });
      current.sentEnvironments.add(environment);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            slot.stopping = true;
            // Nothing will answer what is still in flight: settle it rather than leave callers hanging.
            for (const pending of slot.pending.values()) pending.reject(new HostError('ERR_SANDBOX_UNAVAILABLE', 'the host is shutting down'));
            slot.pending.clear();
            slot.markReady();
            if (slot.child.exitCode !== null || slot.child.signalCode !== null) return resolve();
            // Disconnecting lets the worker exit on its own (flushing profiles, closing isolates);
            // one that does not within a second is killed.
            const kill = setTimeout(() => slot.child.kill('SIGKILL'), 1_000);
            slot.child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            if (slot.child.connected) slot.child.disconnect();
            else slot.child.kill('SIGKILL');
          }),
      ),
    );
  }

  private post(slot: Slot, message: ToWorker): void {
    if (slot.child.connected) slot.child.send(message);
  }

  private spawn(index: number): Slot {
    const child = fork(WORKER_ENTRY, [], {
      execArgv: ['--no-node-snapshot', '--disable-warning=ExperimentalWarning'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let markReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    const slot: Slot = { index, child, ready, markReady, pending: new Map(), stopping: false, sentEnvironments: new WeakSet() };
    if (index === this.offenderWorker && child.pid !== undefined) {
      try {
        setPriority(child.pid, 19);
      } catch {
        // Some sandboxes forbid renicing; the separation into its own process still holds.
      }
    }
    child.on('message', (message: FromWorker) => {
      if (message.type === 'ready') return markReady();
      if (message.type === 'log') return this.options.onLog(message);
      if (message.type === 'api-request') return this.answerApi(slot, message.id, message.integration, message.request);
      if (message.type === 'egress-connect') return this.options.onEgressConnect?.({ integration: message.integration, address: message.address, port: message.port });
      if (message.type === 'hog') return this.demote(message.integration, `executed ${message.cpuMs} ms in one busy period (limit ${this.options.limits.hogCpuMs} ms)`);
      this.settle(slot, message);
    });
    child.on('exit', (code, signal) => this.onExit(slot, code, signal));
    child.on('error', (error) => this.options.onNotice('error', `sandbox worker ${index} error: ${error.message}`));
    child.send({ type: 'init', runtimeScript: this.options.runtimeScript, limits: this.options.limits, egress: this.options.egress } satisfies ToWorker);
    if (this.apiEndpoint !== null) child.send({ type: 'configure', apiEndpoint: this.apiEndpoint } satisfies ToWorker);
    for (const [integration, pinned] of this.pins) {
      const bundle = this.bundles.get(integration);
      if (pinned === index && bundle) child.send({ type: 'register', integration, bundleCode: bundle.code, bundleHash: bundle.hash } satisfies ToWorker);
    }
    return slot;
  }

  private answerApi(slot: Slot, id: number, integration: string, request: BridgeRequest): void {
    // The worker names the integration whose isolate called; the platform API then requires the
    // token to belong to that integration, so one integration cannot act with another's token.
    const handler = this.apiHandler;
    const answer = handler
      ? handler(integration, request).catch((): BridgeResult<BridgeResponse> => ({ ok: false, code: 'TypeError', message: 'platform API unavailable' }))
      : Promise.resolve<BridgeResult<BridgeResponse>>({ ok: false, code: 'TypeError', message: 'platform API unavailable' });
    void answer.then((result) => this.post(slot, { type: 'api-response', id, result }));
  }

  private settle(slot: Slot, result: DispatchResult): void {
    const pending = slot.pending.get(result.id);
    if (pending === undefined) return;
    slot.pending.delete(result.id);
    for (const line of result.logs) this.options.onLog({ integration: pending.integration, eventIds: [pending.eventId], ...line });
    if (result.ok) return pending.resolve({ response: result.response, logs: result.logs, durationMs: result.durationMs });
    if (result.failure === 'memory') this.strike(pending.integration, 'exceeded its memory limit');
    if (result.failure === 'memory' || result.failure === 'timeout') this.demote(pending.integration, result.failure === 'memory' ? 'exceeded its memory limit' : 'ran past its deadline');
    if (result.failure === 'timeout' && this.breaker.record(pending.integration)) {
      const { limit, windowMs, cooldownMs } = this.options.timeoutBreaker;
      this.options.onNotice('warn', `integration "${pending.integration}" ran past its deadline ${limit} times within ${windowMs / 1000} s: paused for ${cooldownMs / 1000} s`);
    }
    pending.reject(Object.assign(FAILURE_ERRORS[result.failure](result.message), { logs: result.logs }));
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.stopping || this.stopped) return;
    slot.markReady();
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    const suspects = new Set([...slot.pending.values()].map((pending) => pending.integration));
    this.options.onNotice('error', `sandbox worker ${slot.index} died (${how}) with ${slot.pending.size} request(s) in flight${suspects.size ? ` from ${[...suspects].join(', ')}` : ''}; restarting it`);
    for (const pending of slot.pending.values()) {
      pending.reject(new HostError('ERR_SANDBOX_CRASHED', 'the sandbox running this integration crashed while handling the request'));
    }
    slot.pending.clear();
    for (const integration of suspects) this.strike(integration, 'crashed its sandbox worker');
    for (const integration of suspects) this.demote(integration, 'was in flight when its sandbox worker died');
    this.slots[slot.index] = this.spawn(slot.index);
  }

  private strike(integration: string, what: string): void {
    if (this.ledger.record(integration)) {
      this.options.onNotice('error', `integration "${integration}" ${what} ${this.options.crashesBeforeQuarantine} times within ${this.options.crashWindowMs / 1000} s: quarantined until the host restarts`);
    }
  }
}
