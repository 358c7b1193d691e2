// The IPC protocol between the supervisor (host process) and a sandbox worker process.
// Messages are structured-cloned (`serialization: 'advanced'`), so bodies stay binary.
// Types only: nothing here may import isolated-vm or Koa.

import type {
  BridgeRequest,
  BridgeResponse,
  BridgeResult,
  Envelope,
  RuntimeModuleName,
  SandboxResponse,
} from '../../sandbox-api/runtime/contract.ts';
import type { EgressOptions } from '../bridge/egress-policy.ts';
import type { WorkerPriority } from '../offenders/index.ts';

export interface SandboxLimits {
  memoryLimitMb: number;
  dispatchTimeoutMs: number;
  waitUntilTimeoutMs: number;
  /** A response body that follows its answer (a stream) must be sent within this, from the answer. */
  streamTimeoutMs: number;
  maxFetchesPerDispatch: number;
  /** The most bytes one response body may carry out of the isolate, buffered or streamed. */
  maxResponseBytes: number;
  /** The most bytes (decoded) of one outbound fetch's response body. */
  maxFetchResponseBytes: number;
  maxLogLineBytes: number;
  maxLogLinesPerDispatch: number;
  /** Characters of log text kept per event (and per window of work after the response). */
  maxLogBytesPerDispatch: number;
  /**
   * Milliseconds an integration may execute in one busy period (dispatches and waitUntil work that
   * overlap) before it is moved to the low-priority worker, while the work still runs.
   */
  hogCpuMs: number;
  /**
   * A hard count of live isolates per worker, on top of the memory budget; past it the least recently used idle one is
   * disposed.
   */
  maxLiveIsolatesPerWorker: number;
  /**
   * Realms each worker keeps ready for cold integrations (isolate-pool.ts): isolates made from the
   * runtime snapshot and bootstrapped, never having run guest code; 0 turns the pool off.
   */
  warmIsolatesPerWorker: number;
}

export interface WorkerInit {
  type: 'init';
  runtimeScript: string;
  /**
   * The runtime's startup-snapshot script (sandbox-api/runtime/snapshot.ts): every isolate is made from its snapshot.
   */
  snapshotScript: string;
  /** The lazily loaded runtime modules' scripts (sandbox-api/runtime/build.ts buildRuntimeModules), by name. */
  runtimeModules: Record<RuntimeModuleName, string>;
  /**
   * The two scripts' source maps (sandbox-api/runtime/build.ts): frames of the provided sandbox-api modules are named
   * by them in logs.
   */
  runtimeMaps?: { runtime: string; snapshot: string };
  limits: SandboxLimits;
  /** This worker's share of the isolate memory budget: past it, least recently used idle isolates are disposed. */
  isolateBudgetMb: number;
  egress: EgressOptions;
  /**
   * How this worker's guest threads compete for CPU (its main thread stays above them, at nice 10 in a lowered
   * worker); absent: normal.
   */
  priority?: WorkerPriority;
  /** The command that sets SCHED_IDLE on a thread (util-linux's `chrt`); tests name a missing one. */
  schedIdleCommand?: string;
  /**
   * An offenders' worker under the host's offenders' CPU quota: the group's `tasks` file, where it puts its guest
   * threads (never its main thread).
   */
  offenderCpuQuotaTasks?: string;
}

export interface RegisterIntegration {
  type: 'register';
  integration: string;
  bundleCode: string;
  bundleHash: string;
  /** The bundle's source map (JSON, sources relative to the integration folder), for stack traces. */
  bundleMap?: string;
}

/**
 * One dispatch. The event travels as JSON text (it enters the isolate as one flat string; the
 * worker reads only the fields named here). The environment rarely changes between dispatches of
 * an installation, so it travels only when the worker has not seen this version yet
 * (`environmentJson` set); otherwise the worker reuses the text it stored under `environmentKey`.
 */
export interface DispatchRequest {
  type: 'dispatch';
  id: number;
  integration: string;
  eventId: string;
  installationId: string;
  eventJson: string;
  /** A fetch event's request URL, which the worker parses for the runtime (Envelope.parsedUrls). */
  requestUrl?: string;
  fetchBody: Envelope['fetchBody'];
  environmentKey: string;
  environmentJson?: string;
  /**
   * On the offenders' workers: what was left of the host's deadline when it sent this (the host
   * keeps it from the request's arrival), the dispatch's deadline from its arrival here. Absent:
   * limits.dispatchTimeoutMs.
   */
  deadlineMs?: number;
  /**
   * The caller can send a response body on as it is produced: a body that follows the answer
   * (a stream) comes over the body channel (body-channel.ts) after a result with `streamed`.
   * Absent: the worker collects it and the result carries it whole.
   */
  stream?: boolean;
}

/** Sent once the host listens: guest fetches to this origin go to the platform API over IPC. */
export interface ConfigureWorker {
  type: 'configure';
  apiEndpoint: string;
}

/** The host's answer to a guest's platform API call. */
export interface ApiResult {
  type: 'api-response';
  id: number;
  result: BridgeResult<BridgeResponse>;
}

/** The integration moved to another worker: dispose its isolate here. */
export interface UnregisterIntegration {
  type: 'unregister';
  integration: string;
}

/**
 * The worker's store of environment texts reached its bound (held-environments.ts): drop them all.
 * Always followed by dispatches that carry their text again.
 */
export interface ForgetEnvironments {
  type: 'forget-environments';
}

/**
 * The supervisor answered this dispatch itself (its backstop passed: the worker did not answer in
 * time, e.g. starved of CPU): if it is still running, dispose its isolate.
 */
export interface AbandonDispatch {
  type: 'abandon';
  id: number;
}

export type ToWorker =
  | WorkerInit
  | RegisterIntegration
  | UnregisterIntegration
  | DispatchRequest
  | ForgetEnvironments
  | ConfigureWorker
  | ApiResult
  | AbandonDispatch;

export interface CapturedLog {
  level: string;
  text: string;
}

/** Failures the worker reports; the supervisor maps them to HostError codes. */
export type DispatchFailure = 'timeout' | 'memory' | 'bad-response' | 'not-registered' | 'isolate-reset';

/**
 * `draining`: the integration still has waitUntil work running after this answer (see Drained).
 * `executedMs` (failures): what the isolate executed in its busy period up to the failure, the
 * evidence that a timeout or memory kill burned CPU rather than waited (supervisor's demotion).
 * `beforeGuest` (timeouts): the deadline passed while the host was still building the isolate's
 * realm, before any of the integration's code ran (an offenders' worker answers by the deadline
 * from the dispatch's arrival: isolate.ts IsolateOptions); not the integration's offence.
 */
export type DispatchResult =
  | {
      type: 'result';
      id: number;
      ok: true;
      response: SandboxResponse;
      logs: CapturedLog[];
      durationMs: number;
      draining?: boolean;
      streamed?: boolean;
    }
  | {
      type: 'result';
      id: number;
      ok: false;
      failure: DispatchFailure;
      message: string;
      logs: CapturedLog[];
      durationMs: number;
      draining?: boolean;
      executedMs?: number;
      beforeGuest?: boolean;
    };

/** The integration's work after its responses (waitUntil) is over: it is idle in this worker. */
export interface Drained {
  type: 'drained';
  integration: string;
}

/** Console output produced outside any dispatch's response (waitUntil work, late timers). */
export interface LateLog {
  type: 'log';
  integration: string;
  eventIds: string[];
  level: string;
  text: string;
}

export interface WorkerReady {
  type: 'ready';
  /** A lowered worker whose guest threads could not all be lowered: why, in words (see GuestThreads). */
  loweringProblem?: string;
}

/** A guest's fetch to `environment.apiEndpoint`, handed to the host instead of the network. */
export interface ApiCall {
  type: 'api-request';
  id: number;
  integration: string;
  request: BridgeRequest;
}

/** The connect audit: a socket of the fetch bridge is about to connect to this destination. */
export interface EgressConnect {
  type: 'egress-connect';
  integration: string;
  address: string;
  port: number;
}

/** An integration executed past limits.hogCpuMs in one busy period (reported once per period). */
export interface HogReport {
  type: 'hog';
  integration: string;
  cpuMs: number;
}

/** Something the metrics count happened in a worker (host-side bookkeeping; nothing of the guest's). */
export interface WorkerCount {
  type: 'count';
  integration: string;
  name: 'isolate_start' | 'warm_isolate_start' | 'bundle_precompiled' | 'isolate_eviction' | 'egress_refusal';
}

/** A live isolate was disposed; `evicted` when it made room under the memory budget or count cap. */
export interface IsolateDisposed {
  type: 'isolate-disposed';
  integration: string;
  evicted: boolean;
}

export type FromWorker =
  | DispatchResult
  | Drained
  | LateLog
  | WorkerReady
  | ApiCall
  | EgressConnect
  | HogReport
  | WorkerCount
  | IsolateDisposed;
