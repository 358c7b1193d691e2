// Entry of a sandbox worker process (forked by the supervisor with --no-node-snapshot). Holds one
// isolate per pinned integration and answers dispatch messages. It never serves HTTP and never
// sees another worker's integrations; if a guest crashes V8, only this process dies. Its units are
// in worker/ (API forwarding, memory budget, hog sampling, startup, thread lowering, quiet window).

import type { DispatchResult, FromWorker, ToWorker, WorkerInit } from './messages.ts';
import { DispatchError, IntegrationIsolate, type RuntimeSource } from './isolate.ts';
import { createStackMapper, scriptFilename } from './stack-map.ts';
import { createEgressPolicy } from '../bridge/egress-policy.ts';
import { MAX_FETCH_REDIRECTS, performFetch } from '../bridge/fetch.ts';
import { lookupWithOverrides } from '../bridge/egress-resolve.ts';
import { batchedSender, unbatch, type MessageBatch } from './ipc-batch.ts';
import type { IsolatePool } from './isolate-pool.ts';
import { moduleSources } from './realm-primitives.ts';
import { isKeyOf } from './held-environments.ts';
import type { BundlePrecompiler } from './bundle-precompiler.ts';
import type { GuestThreads } from '../offenders/index.ts';
import type { ResponseBody } from './response-body.ts';
import { BODY_CHANNEL_FD } from './body-channel.ts';
import { createBodySender } from './body-sender.ts';
import { PlatformApiForwarder } from './worker/platform-api.ts';
import { EVICTED, MemoryBudget } from './worker/memory-budget.ts';
import { QuietWindow } from './worker/quiet-window.ts';
import { startHogSampler } from './worker/hog-sampler.ts';
import { deadlineFrom, lowerGuestThreads } from './worker/lowering.ts';
import { createPool, createPrecompiler, startupSnapshot } from './worker/startup.ts';

const FETCH_TIMEOUT_MS = 10_000;

let init: WorkerInit | null = null;
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

/** Guests' platform API calls, forwarded to the supervisor (worker/platform-api.ts). */
const platformApi = new PlatformApiForwarder(send);
/** This worker's share of the isolate memory budget (worker/memory-budget.ts). */
const budget = new MemoryBudget({ settings: () => init, isolates, pool: () => pool, send });
/** When background work may create an isolate (worker/quiet-window.ts). */
const quiet = new QuietWindow();

function register(integration: string, bundleCode: string, bundleMap: string | undefined): void {
  if (init === null || runtime === null) throw new Error('worker used before init');
  quiet.touch();
  // A new build (the dev loop's reload): dispatches from now on start the new isolate; the old
  // one finishes what it has in flight and is then disposed. The two share nothing.
  const previous = isolates.get(integration);
  // init.egress carries the host's own ports: never a destination (see excludingHostPorts).
  const policy = createEgressPolicy(init.egress);
  const lookup = lookupWithOverrides(init.egress.resolve);
  const isolate = new IntegrationIsolate(
    integration,
    bundleCode,
    runtime,
    init.limits,
    {
      // The guest resumes on an isolate thread once its fetch settles (lookAtThreads).
      fetch: (request, signal) =>
        (platformApi.isPlatformApi(request.url)
          ? platformApi.call(integration, request)
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
                send({
                  type: 'log',
                  integration,
                  eventIds: [],
                  level: 'warn',
                  text: `egress refused for ${url}: ${reason}`,
                });
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
      measured: () => budget.measured(isolate),
      takeRealm: () => pool?.take(),
    },
    { deadlineFrom: deadlineFrom(init) },
  );
  isolates.set(integration, isolate);
  previous?.retire('replaced by a new build');
  // Its code cache is made now, off any request's path, so that its first start only deserializes
  // its bundle. Not wanted once it has one, or once this build was replaced or moved away.
  precompiler?.request({
    code: bundleCode,
    filename: scriptFilename(integration),
    wanted: () => isolates.get(integration) === isolate && isolate.wantsCodeCache,
    done: (cache) => {
      if (cache !== undefined && isolate.offerCodeCache(bundleCode, cache))
        send({ type: 'count', integration, name: 'bundle_precompiled' });
    },
  });
}

const bodies = createBodySender(BODY_CHANNEL_FD);

async function dispatch(
  id: number,
  integration: string,
  envelope: Parameters<IntegrationIsolate['dispatch']>[0],
  stream: boolean,
): Promise<void> {
  const started = performance.now();
  quiet.touch(started);
  const isolate = isolates.get(integration);
  // Only a start makes room: a dispatch joining one already under way adds nothing to the budget.
  if (isolate !== undefined && !isolate.isLive && !isolate.isStarting) budget.enforce(isolate);
  let result: DispatchResult;
  let following: ResponseBody | undefined;
  if (isolate !== undefined) inFlight.set(id, isolate);
  if (isolate === undefined) {
    result = {
      type: 'result',
      id,
      ok: false,
      failure: 'not-registered',
      message: 'integration not loaded in this worker',
      logs: [],
      durationMs: 0,
    };
  } else {
    try {
      const { response, logs, body } = await isolate.dispatch(envelope);
      if (body !== undefined && !stream)
        response.body = await bodies.collect(body).catch((error: unknown) => {
          throw new DispatchError('bad-response', error instanceof Error ? error.message : 'the response body failed');
        });
      else following = body;
      result = {
        type: 'result',
        id,
        ok: true,
        response,
        logs,
        durationMs: performance.now() - started,
        draining: isolate.isDraining,
        ...(following !== undefined ? { streamed: true } : {}),
      };
    } catch (error) {
      const failure =
        error instanceof DispatchError ? error : new DispatchError('isolate-reset', 'the integration failed');
      const logs = (error as { logs?: DispatchResult['logs'] }).logs ?? [];
      const executedMs = (error as { executedMs?: number }).executedMs ?? 0;
      result = {
        type: 'result',
        id,
        ok: false,
        failure: failure.failure,
        message: failure.message,
        logs,
        durationMs: performance.now() - started,
        executedMs,
        ...(failure.beforeGuest ? { beforeGuest: true } : {}),
      };
    }
  }
  inFlight.delete(id);
  // A timeout leaves at once rather than at the end of this turn: its caller has waited a whole
  // deadline already, and one more write is nothing beside it.
  send(result, !result.ok && result.failure === 'timeout');
  if (following !== undefined) void bodies.send(id, following);
  quiet.touch();
  // The answer is on its way: the pool may refill (at once if empty, else once the worker is
  // quiet) and the precompiler go on (off the critical path, once nothing waits).
  pool?.refillSoon();
  precompiler?.resume();
  budget.afterDispatch();
}

startHogSampler(() => init, isolates, lookAtThreads, send);

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

function announceReady(problem: string | null): void {
  send({ type: 'ready', ...(problem !== null ? { loweringProblem: problem } : {}) });
  pool?.refillSoon();
}

function receive(message: ToWorker): void {
  switch (message.type) {
    case 'init':
      init = message;
      runtime = {
        code: message.runtimeScript,
        modules: moduleSources(message.runtimeModules),
        ...startupSnapshot(message.snapshotScript, send),
      };
      // The map of the script this worker's isolates actually run: the snapshot's, or the runtime's without one.
      runtimeMap = runtime.snapshot !== undefined ? message.runtimeMaps?.snapshot : message.runtimeMaps?.runtime;
      pool = createPool(
        message,
        runtime,
        { busy: dispatchesInFlight, quietWaitMs: () => quiet.waitMs(), hasRoom: (bytes) => budget.hasRoom(bytes) },
        send,
      );
      precompiler = createPrecompiler(message, runtime, {
        busy: dispatchesInFlight,
        quietWaitMs: () => quiet.waitMs(),
      });
      guestThreads = lowerGuestThreads(message, send);
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
      void dispatch(
        message.id,
        message.integration,
        {
          eventId: message.eventId,
          installationId: message.installationId,
          eventJson: message.eventJson,
          environmentJson: environmentText(message.environmentKey),
          fetchBody: message.fetchBody,
          ...(message.requestUrl !== undefined ? { requestUrl: message.requestUrl } : {}),
          ...(message.deadlineMs !== undefined ? { deadlineMs: message.deadlineMs } : {}),
        },
        message.stream === true,
      );
      return;
    }
    case 'configure':
      platformApi.configure(message.apiEndpoint);
      return;
    case 'abandon': {
      // The host has answered this dispatch already; whatever it still runs is a runaway.
      inFlight.get(message.id)?.dispose('abandoned: the host answered for it');
      return;
    }
    case 'api-response':
      platformApi.answered(message.id, message.result);
      return;
  }
}

process.on('message', (message: ToWorker | MessageBatch<ToWorker>) => unbatch(message, receive));

// The supervisor owns this process: when it goes away, so do we.
process.on('disconnect', () => process.exit(0));
