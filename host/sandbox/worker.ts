// Entry of a sandbox worker process (forked by the supervisor with --no-node-snapshot). Holds one
// isolate per pinned integration and answers dispatch messages. It never serves HTTP and never
// sees another worker's integrations; if a guest crashes V8, only this process dies.

import type { DispatchResult, FromWorker, ToWorker, WorkerInit } from './messages.ts';
import type { BridgeRequest, BridgeResponse, BridgeResult } from '../../sandbox-api/runtime/contract.ts';
import { DispatchError, IntegrationIsolate, type RuntimeSource } from './isolate.ts';
import { createStackMapper, scriptFilename } from './stack-map.ts';
import { createEgressPolicy } from '../bridge/egress-policy.ts';
import { MAX_FETCH_REDIRECTS, performFetch } from '../bridge/fetch.ts';
import { lookupWithOverrides } from '../bridge/egress-resolve.ts';
import { batchedSender, unbatch, type MessageBatch } from './ipc-batch.ts';
import { createRuntimeSnapshot } from './runtime-snapshot.ts';
import { fitsOneMore, isolatesToEvict, poolCandidates, surelyWithin, type PoolCandidate } from './isolate-budget.ts';
import { IsolatePool } from './isolate-pool.ts';
import { prepareRealm, type PreparedRealm } from './realm.ts';
import { moduleSources } from './realm-primitives.ts';
import { isKeyOf } from './held-environments.ts';
import { BundlePrecompiler } from './bundle-precompiler.ts';
import { GuestThreads } from '../offenders/index.ts';
import type { ResponseBody } from './response-body.ts';
import { BODY_CHANNEL_FD } from './body-channel.ts';
import { createBodySender } from './body-sender.ts';

const EVICTED = 'evicted (least recently used)';
/** What an isolate is assumed to take before any in this worker was measured (the runtime alone is ~2–4 MB). */
const DEFAULT_ISOLATE_BYTES = 4 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

let init: WorkerInit | null = null;
let apiOrigin: string | null = null;
let nextApiCall = 1;
const apiCalls = new Map<number, (result: BridgeResult<BridgeResponse>) => void>();
let runtime: RuntimeSource | null = null;
/** The source map of the runtime script this worker's isolates run (stack-map.ts), when the supervisor sent one. */
let runtimeMap: string | undefined;
/** Realms made ahead of time for cold integrations (isolate-pool.ts); null until init. */
let pool: IsolatePool | null = null;
/** Compiles registered bundles ahead of their first request, for their code cache; null until init. */
let precompiler: BundlePrecompiler | null = null;
/** In a lowered worker (init.priority): keeps every thread but this main thread lowered; null otherwise. */
let guestThreads: GuestThreads | null = null;

/** A thread isolated-vm made for work just handed to an isolate is lowered once this turn ends. */
function lookAtThreads(): void {
  guestThreads?.soon();
}
const isolates = new Map<string, IntegrationIsolate>();
/**
 * Dispatches in flight in this worker: id → the isolate running it (for the supervisor's abandon:
 * that isolate, not whichever one the integration has by then after a new build or a move).
 */
const inFlight = new Map<number, IntegrationIsolate>();
/** The latest environment (JSON text) the supervisor sent per installation (see DispatchRequest). */
const environments = new Map<string, string>();

/** Sends to the supervisor, coalescing what one turn of the event loop sends (ipc-batch.ts). */
const send = batchedSender<FromWorker>((message) => {
  // During shutdown the channel can close under a late result; with a callback a failed send is
  // dropped instead of crashing this process with an unhandled EPIPE.
  if (process.connected) process.send?.(message, undefined, undefined, () => undefined);
});

/** Whether a guest URL targets the platform API (same origin as environment.apiEndpoint). */
function isPlatformApi(url: string): boolean {
  if (apiOrigin === null) return false;
  try {
    return new URL(url).origin === apiOrigin;
  } catch {
    return false;
  }
}

function callPlatformApi(integration: string, request: BridgeRequest): Promise<BridgeResult<BridgeResponse>> {
  const id = nextApiCall++;
  return new Promise((resolve) => {
    apiCalls.set(id, resolve);
    send({ type: 'api-request', id, integration, request });
  });
}

function register(integration: string, bundleCode: string, bundleMap: string | undefined): void {
  if (init === null || runtime === null) throw new Error('worker used before init');
  lastActivity = performance.now();
  // A new build (the dev loop's reload): dispatches from now on start the new isolate; the old
  // one finishes what it has in flight and is then disposed. The two share nothing.
  const previous = isolates.get(integration);
  // init.egress carries the host's own ports: never a destination (see excludingHostPorts).
  const policy = createEgressPolicy(init.egress);
  const lookup = lookupWithOverrides(init.egress.resolve);
  const isolate = new IntegrationIsolate(integration, bundleCode, runtime, init.limits, {
    // The guest resumes on an isolate thread once its fetch settles (lookAtThreads).
    fetch: (request, signal) =>
      (isPlatformApi(request.url)
        ? callPlatformApi(integration, request)
        : performFetch(request, {
        policy,
        timeoutMs: FETCH_TIMEOUT_MS,
        maxResponseBytes: init!.limits.maxFetchResponseBytes,
        maxRedirects: MAX_FETCH_REDIRECTS,
        streaming: true,
        signal,
        lookup,
        onRefusal: (url, reason) => {
          send({ type: 'count', integration, name: 'egress_refusal' });
          send({ type: 'log', integration, eventIds: [], level: 'warn', text: `egress refused for ${url}: ${reason}` });
        },
        // The connect audit: every destination a socket is pointed at, reported to the host.
        onConnect: (address, port) => send({ type: 'egress-connect', integration, address, port }),
      })
      ).finally(lookAtThreads),
    entered: lookAtThreads,
    lateLog: (eventIds, level, text) => send({ type: 'log', integration, eventIds, level, text }),
    onDrained: () => send({ type: 'drained', integration }),
    onIsolateStart: (pooled) => {
      send({ type: 'count', integration, name: 'isolate_start' });
      if (pooled) send({ type: 'count', integration, name: 'warm_isolate_start' });
    },
    mapText: createStackMapper(integration, bundleMap, runtimeMap),
    disposed: (reason) => send({ type: 'isolate-disposed', integration, evicted: reason === EVICTED }),
    measured: () => {
      largestIsolateBytes = Math.max(largestIsolateBytes, isolate.memoryBytes);
      budgetChanged = true;
      scheduleBudgetCheck();
    },
    takeRealm: () => pool?.take(),
  }, { deadlineFrom: deadlineFrom(init) });
  isolates.set(integration, isolate);
  previous?.retire('replaced by a new build');
  // Its code cache is made now, off any request's path, so that its first start only deserializes
  // its bundle. Not wanted once it has one, or once this build was replaced or moved away.
  precompiler?.request({
    code: bundleCode,
    filename: scriptFilename(integration),
    wanted: () => isolates.get(integration) === isolate && isolate.wantsCodeCache,
    done: (cache) => {
      if (cache !== undefined && isolate.offerCodeCache(bundleCode, cache)) send({ type: 'count', integration, name: 'bundle_precompiled' });
    },
  });
}

/** Whether this is one of the offenders' workers (its guest threads lowered, its deadline from arrival). */
function lowered(settings: WorkerInit): settings is WorkerInit & { priority: 'nice19' | 'sched-idle' } {
  return settings.priority !== undefined && settings.priority !== 'normal';
}

/**
 * When a dispatch's deadline starts (isolate.ts IsolateOptions): at its arrival on the offenders'
 * workers, whose guest threads (where realms are built) are lowered and held by the offenders' CPU
 * quota, so a realm built there can take hundreds of ms and the answer must not wait for it; once
 * the realm is built on regular workers, where a slow build is only a busy machine's.
 */
function deadlineFrom(settings: WorkerInit): 'realm' | 'arrival' {
  return lowered(settings) ? 'arrival' : 'realm';
}

/**
 * Isolates are created lazily on first dispatch; to bound memory with many integrations, the
 * least recently used idle isolates are disposed whenever the live ones would pass this worker's
 * share of the memory budget (or the count cap). Sizes are each isolate's last measurement; one
 * never measured counts as the average of those that were. Isolates being created count as live
 * (and busy); `newcomer` is about to start one and is never evicted itself.
 */
function enforceIsolateBudget(newcomer?: IntegrationIsolate): void {
  if (init === null) return;
  if (!overBudget && budgetSurelyHolds()) {
    budgetChanged = false;
    checkedAt = performance.now();
    return;
  }
  const { candidates, coming } = budgetCandidates(newcomer);
  const budgetBytes = init.isolateBudgetMb * 1024 * 1024;
  // Ready realms of the warm pool never ran anything (lastUsedAt -Infinity): they go first.
  const evicted = isolatesToEvict(candidates, coming, budgetBytes, init.limits.maxLiveIsolatesPerWorker);
  for (const candidate of evicted) {
    if (candidate.realm !== undefined) {
      pool?.discard(candidate.realm);
      continue;
    }
    candidate.isolate?.dispose(EVICTED);
    if (candidate.isolate !== undefined) send({ type: 'count', integration: candidate.isolate.name, name: 'isolate_eviction' });
  }
  let used = 0;
  for (const candidate of candidates) if (!evicted.includes(candidate)) used += candidate.bytes;
  overBudget = used > budgetBytes || candidates.length - evicted.length > init.limits.maxLiveIsolatesPerWorker;
  budgetChanged = false;
  checkedAt = performance.now();
}

interface Candidate extends PoolCandidate<PreparedRealm> {
  isolate?: IntegrationIsolate;
}

/**
 * Everything that takes isolate memory in this worker: live and starting isolates (and the
 * newcomer), and the warm pool's realms, ready or being made (isolate-budget.ts).
 */
function budgetCandidates(newcomer?: IntegrationIsolate): { candidates: Candidate[]; coming: Candidate | undefined } {
  const live = [...isolates.values()].filter((candidate) => candidate.isLive || candidate.isStarting || candidate === newcomer);
  const measured = live.filter((candidate) => candidate.memoryBytes > 0);
  const typical = measured.length > 0 ? measured.reduce((sum, candidate) => sum + candidate.memoryBytes, 0) / measured.length : DEFAULT_ISOLATE_BYTES;
  const candidates: Candidate[] = live.map((isolate) => ({ isolate, idle: isolate.isIdle, lastUsedAt: isolate.lastUsedAt, bytes: isolate.memoryBytes || typical }));
  const coming = candidates.find((candidate) => candidate.isolate === newcomer);
  if (pool !== null) candidates.push(...poolCandidates(pool.view(), coming !== undefined));
  return { candidates, coming };
}

/** Whether one more realm of `bytes` fits this worker's budget and count cap beside everything live. */
function budgetHasRoom(bytes: number): boolean {
  if (init === null) return false;
  if (budgetSurelyHolds(bytes)) return true;
  return fitsOneMore(budgetCandidates().candidates, bytes, init.isolateBudgetMb * 1024 * 1024, init.limits.maxLiveIsolatesPerWorker);
}

/**
 * The largest memory any isolate of this worker measured so far (never lowered), at least the
 * estimate used before any measurement: what each one counts for in budgetSurelyHolds.
 */
let largestIsolateBytes = DEFAULT_ISOLATE_BYTES;

/**
 * Whether this worker is within its budget and count cap even with every registered integration
 * live at the largest size seen (or `realmBytes`, a realm about to be made), beside a full pool and
 * one realm being made (isolate-budget.ts surelyWithin). Then a cold start or a refill needs no
 * walk over every isolate: the walk cost a cold start 0.17–0.28 ms with 125 integrations per worker
 * (docs/performance.md) and grows with them.
 */
function budgetSurelyHolds(realmBytes = 0): boolean {
  if (init === null) return false;
  const largestBytes = Math.max(largestIsolateBytes, pool?.bytesEach ?? 0, realmBytes);
  const bound = { integrations: isolates.size, poolRealms: init.limits.warmIsolatesPerWorker + 1, largestBytes };
  return surelyWithin(bound, init.isolateBudgetMb * 1024 * 1024, init.limits.maxLiveIsolatesPerWorker);
}

/** Whether the last check left this worker over budget (busy isolates could not be disposed). */
let overBudget = false;
/** Whether an isolate was measured since the last check (isolates grow; starts overlap). */
let budgetChanged = false;
let checkedAt = 0;
/** The check walks every isolate: after a measurement it waits at least this long for the next. */
const RECHECK_MS = 100;
let budgetCheck: NodeJS.Timeout | null = null;

/** Checks the budget soon after a measurement landed, at most once per RECHECK_MS, even if no dispatch follows. */
function scheduleBudgetCheck(): void {
  if (budgetCheck !== null) return;
  budgetCheck = setTimeout(() => {
    budgetCheck = null;
    if (budgetChanged) enforceIsolateBudget();
  }, Math.max(0, checkedAt + RECHECK_MS - performance.now()));
  budgetCheck.unref();
}

/**
 * The worker's quiet window: background work that creates an isolate synchronously (the warm pool's
 * refill while a realm is still ready; on the offenders' workers, the precompiler) starts only once
 * no dispatch arrived or was answered and no integration registered for this long. A caller's next
 * request (a retry after a 504, the next page of a client) usually follows its answer within a few
 * milliseconds on loopback, and an integration moved here registers just before the request that
 * moved it; either would otherwise wait behind that creation (1–15 ms of this thread). An empty
 * pool refills at once.
 */
const QUIET_MS = 5;
/** performance.now() of the last dispatch this worker received or answered, or the last registration. */
let lastActivity = -Infinity;

/** What is left of the quiet window (0: quiet now). */
function quietWaitMs(): number {
  return Math.max(0, lastActivity + QUIET_MS - performance.now());
}

const bodies = createBodySender(BODY_CHANNEL_FD);

async function dispatch(id: number, integration: string, envelope: Parameters<IntegrationIsolate['dispatch']>[0], stream: boolean): Promise<void> {
  const started = performance.now();
  lastActivity = started;
  const isolate = isolates.get(integration);
  // Only a start makes room: a dispatch joining one already under way adds nothing to the budget.
  if (isolate !== undefined && !isolate.isLive && !isolate.isStarting) enforceIsolateBudget(isolate);
  let result: DispatchResult;
  let following: ResponseBody | undefined;
  if (isolate !== undefined) inFlight.set(id, isolate);
  if (isolate === undefined) {
    result = { type: 'result', id, ok: false, failure: 'not-registered', message: 'integration not loaded in this worker', logs: [], durationMs: 0 };
  } else {
    try {
      const { response, logs, body } = await isolate.dispatch(envelope);
      if (body !== undefined && !stream) response.body = await bodies.collect(body).catch((error: unknown) => {
        throw new DispatchError('bad-response', error instanceof Error ? error.message : 'the response body failed');
      });
      else following = body;
      result = { type: 'result', id, ok: true, response, logs, durationMs: performance.now() - started, draining: isolate.isDraining, ...(following !== undefined ? { streamed: true } : {}) };
    } catch (error) {
      const failure = error instanceof DispatchError ? error : new DispatchError('isolate-reset', 'the integration failed');
      const logs = (error as { logs?: DispatchResult['logs'] }).logs ?? [];
      const executedMs = (error as { executedMs?: number }).executedMs ?? 0;
      result = { type: 'result', id, ok: false, failure: failure.failure, message: failure.message, logs, durationMs: performance.now() - started, executedMs, ...(failure.beforeGuest ? { beforeGuest: true } : {}) };
    }
  }
  inFlight.delete(id);
  // A timeout leaves at once rather than at the end of this turn: its caller has waited a whole
  // deadline already, and one more write is nothing beside it.
  send(result, !result.ok && result.failure === 'timeout');
  if (following !== undefined) void bodies.send(id, following);
  lastActivity = performance.now();
  // The answer is on its way: the pool may refill (at once if empty, else once the worker is
  // quiet) and the precompiler go on (off the critical path, once nothing waits).
  pool?.refillSoon();
  precompiler?.resume();
  // Isolates started while others were busy, or grown, may have passed the budget; trim once they
  // are idle. The check walks every isolate, so it runs only when it may find something.
  if (overBudget) enforceIsolateBudget();
  else if (budgetChanged) scheduleBudgetCheck();
}

/** How often busy isolates are sampled for hogs (their execution time in the busy period). */
const HOG_SAMPLE_MS = 100;

// Neighbours first: an integration that keeps executing is reported while its work still runs,
// so the supervisor moves its next dispatches off this worker before any deadline passes.
// The same tick looks for threads made by work no hook saw (timers' watchdogs, the pool's refills).
setInterval(() => {
  if (init === null) return;
  lookAtThreads();
  for (const [integration, isolate] of isolates) {
    const cpuMs = isolate.takeHogReport(init.limits.hogCpuMs);
    if (cpuMs !== null) send({ type: 'hog', integration, cpuMs });
  }
}, HOG_SAMPLE_MS).unref();

/**
 * Every isolate of this worker starts from the runtime's snapshot, built here once (tens of ms).
 * Should isolated-vm refuse to build it, isolates run the runtime script instead, as before
 * snapshots: slower to start, the same realm.
 */
function startupSnapshot(script: string): { snapshot?: RuntimeSource['snapshot'] } {
  try {
    return { snapshot: createRuntimeSnapshot(script) };
  } catch (error) {
    send({ type: 'log', integration: '(sandbox worker)', eventIds: [], level: 'warn', text: `the runtime snapshot could not be built, isolates start without it: ${(error as Error).message}` });
    return {};
  }
}

/**
 * Bundles compiled ahead, while no dispatch waits. On the offenders' workers also only once quiet
 * (quietWaitMs): there the compiling isolate's synchronous creation holds the thread that fires
 * deadlines and answers 504s, and compiling at once made a moved integration's next request wait
 * (docs/performance.md, ninth session). Regular workers were not measured with the window.
 */
function createPrecompiler(settings: WorkerInit, source: RuntimeSource): BundlePrecompiler {
  return new BundlePrecompiler({
    snapshot: source.snapshot,
    memoryLimitMb: settings.limits.memoryLimitMb,
    busy: dispatchesInFlight,
    ...(lowered(settings) ? { waitMs: quietWaitMs } : {}),
  });
}

/**
 * The warm pool: `limits.warmIsolatesPerWorker` realms, with the same memory limit as every
 * isolate, counted against this worker's budget, refilled as soon as no dispatch waits when empty
 * and once the worker is quiet while a realm is still ready. Works
 * from the snapshot or, without one, from the runtime script.
 */
function createPool(settings: WorkerInit, source: RuntimeSource): IsolatePool {
  return new IsolatePool({
    size: settings.limits.warmIsolatesPerWorker,
    prepare: () => prepareRealm(source, settings.limits.memoryLimitMb, { warm: true }),
    busy: dispatchesInFlight,
    waitMs: quietWaitMs,
    hasRoom: budgetHasRoom,
    warn: (text) => send({ type: 'log', integration: '(sandbox worker)', eventIds: [], level: 'warn', text }),
  });
}

/**
 * The text held under `key`. The supervisor sends it whenever it is not held here, so a miss is a
 * bug: the dispatch then fails rather than run the guest with an empty environment ('' is not JSON,
 * so the runtime refuses the envelope).
 */
function environmentText(key: string): string {
  return environments.get(key) ?? '';
}

/** Whether a dispatch of this worker is under way: background work (pool refills, precompiles) waits. */
function dispatchesInFlight(): boolean {
  return inFlight.size > 0;
}

/**
 * A lowered worker's guest threads (every thread but this one, see sched-policy.ts): this main
 * thread stays above them (nice 10), so that the deadline timer, the 504 and the IPC of an
 * offender's worker never wait behind its own spinning isolate. Later trouble is logged once.
 */
function lowerGuestThreads(settings: WorkerInit): GuestThreads | null {
  if (!lowered(settings)) return null;
  return new GuestThreads({
    priority: settings.priority,
    ...(settings.schedIdleCommand !== undefined ? { command: settings.schedIdleCommand } : {}),
    ...(settings.offenderCpuQuotaTasks !== undefined ? { quotaTasks: settings.offenderCpuQuotaTasks } : {}),
    onProblem: (problem) => send({ type: 'log', integration: '(sandbox worker)', eventIds: [], level: 'warn', text: `this low-priority worker could not lower all of its guest threads: ${problem}` }),
    onQuotaProblem: (problem) => send({ type: 'log', integration: '(sandbox worker)', eventIds: [], level: 'warn', text: `this offenders' worker could not put all of its guest threads under the offenders' CPU quota: ${problem}` }),
  });
}

function announceReady(problem: string | null): void {
  send({ type: 'ready', ...(problem !== null ? { loweringProblem: problem } : {}) });
  pool?.refillSoon();
}

function receive(message: ToWorker): void {
  switch (message.type) {
    case 'init':
      init = message;
      runtime = { code: message.runtimeScript, modules: moduleSources(message.runtimeModules), ...startupSnapshot(message.snapshotScript) };
      // The map of the script this worker's isolates actually run: the snapshot's, or the runtime's without one.
      runtimeMap = runtime.snapshot !== undefined ? message.runtimeMaps?.snapshot : message.runtimeMaps?.runtime;
      pool = createPool(message, runtime);
      precompiler = createPrecompiler(message, runtime);
      guestThreads = lowerGuestThreads(message);
      if (guestThreads === null) return announceReady(null);
      // Its threads are lowered before it says it is ready (nice 19 at once; SCHED_IDLE takes a `chrt`).
      void guestThreads.check().then(announceReady);
      return;
    case 'register':
      register(message.integration, message.bundleCode, message.bundleMap);
      return;
    case 'unregister': {
      // Moved to another worker: no new dispatch arrives here; let what is in flight finish.
      const moved = isolates.get(message.integration);
      isolates.delete(message.integration);
      // The supervisor forgot them too (HeldEnvironments.forgetIntegration): a return sends them again.
      for (const key of [...environments.keys()]) if (isKeyOf(key, message.integration)) environments.delete(key);
      moved?.retire('moved to another worker');
      return;
    }
    case 'forget-environments':
      environments.clear();
      return;
    case 'dispatch': {
      if (message.environmentJson !== undefined) environments.set(message.environmentKey, message.environmentJson);
      void dispatch(message.id, message.integration, {
        eventId: message.eventId,
        installationId: message.installationId,
        eventJson: message.eventJson,
        environmentJson: environmentText(message.environmentKey),
        fetchBody: message.fetchBody,
        ...(message.requestUrl !== undefined ? { requestUrl: message.requestUrl } : {}),
        ...(message.deadlineMs !== undefined ? { deadlineMs: message.deadlineMs } : {}),
      }, message.stream === true);
      return;
    }
    case 'configure':
      apiOrigin = new URL(message.apiEndpoint).origin;
      return;
    case 'abandon': {
      // The host has answered this dispatch already; whatever it still runs is a runaway.
      inFlight.get(message.id)?.dispose('abandoned: the host answered for it');
      return;
    }
    case 'api-response':
      apiCalls.get(message.id)?.(message.result);
      apiCalls.delete(message.id);
      return;
  }
}

process.on('message', (message: ToWorker | MessageBatch<ToWorker>) => unbatch(message, receive));

// The supervisor owns this process: when it goes away, so do we.
process.on('disconnect', () => process.exit(0));
