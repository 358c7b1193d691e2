// The supervisor's settings and the types its callers share: what an operator's options become,
// the counted events, a bundle as the workers get it, the platform API's handler. Types only: it
// never holds state nor imports a unit of the supervisor.

import type {
  BridgeRequest,
  BridgeResponse,
  BridgeResult,
  RuntimeModuleName,
} from '../../../sandbox-api/runtime/contract.ts';
import type { EgressOptions } from '../../bridge/egress-policy.ts';
import type { SandboxLimits, WorkerCount } from '../messages.ts';
import type { TimeoutBreakerOptions } from '../timeout-breaker.ts';

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
  /**
   * Testing aid: answers whether the SCHED_IDLE worker starved lately (had work, got no CPU), in place of sampling
   * /proc.
   */
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
  /**
   * Counted events for the metrics: isolate starts and evictions, egress refusals, worker restarts, quarantines,
   * throttles.
   */
  onCount?(name: SandboxCountName, integration?: string): void;
}

export type SandboxCountName =
  | WorkerCount['name']
  | 'worker_restart'
  | 'quarantine'
  | 'throttle'
  | 'demotion'
  | 'sched_idle_demotion'
  | 'sched_idle_return'
  | 'start_timeout';
/** What a worker needs of an integration's bundle: the code, its hash and its source map. */
export interface SandboxBundle {
  code: string;
  hash: string;
  map?: string;
}

/** Answers a guest's call to the platform API; `integration` is the one whose isolate made it. */
export type ApiHandler = (integration: string, request: BridgeRequest) => Promise<BridgeResult<BridgeResponse>>;
