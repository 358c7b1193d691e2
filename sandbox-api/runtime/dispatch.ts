// The RuntimeApi the worker drives: holds the guest's entry, runs one envelope through either
// authoring path (sandbox-api's createIntegration() protocol, or a module worker's
// fetch(request, env, ctx) with the envelope as `POST /v1` multipart), serializes the Response,
// tracks waitUntil work per event. dispatch never rejects: every failure is a 5xx SandboxResponse
// with a verdict. The host never learns which path an integration took.
import { capLine, formatReport, inspect, reportOf } from './console-format.ts';
import {
  RUNTIME_VERDICT_HEADER,
  type Envelope,
  type LogLevel,
  type RuntimeApi,
  type RuntimeVerdict,
  type SandboxResponse,
  type DispatchAnswer,
  type StreamedBody,
  type WireAnswer,
} from './contract.ts';
import type { BodyState } from './body.ts';
import type { StreamsExports } from './modules/streams.ts';
import { isModuleWorker, moduleWorkerRequest } from './module-worker.ts';
import { utf8Encode } from './utf8.ts';
import { crossing } from './shared-memory.ts';

/** The key under which createIntegration()'s value carries its `(envelope, host) => Promise<Response>`. */
export const INTEGRATION_PROTOCOL = Symbol.for('sandbox-api.integration');

const BAD_ENTRY_HELP =
  "The integration script's default export must be the value returned by createIntegration() " +
  "(import { createIntegration } from 'sandbox-api'; export default createIntegration({ ... })), " +
  'or a module worker: an object with a fetch(request, env, ctx) method ' +
  "(such as what @gitbook/runtime's createIntegration() returns)";

/**
 * A module worker answering 406 to an event other than `fetch` has no handler for it (@gitbook/runtime's convention).
 */
const MODULE_WORKER_NO_HANDLER_STATUS = 406;

// Captured before any guest code runs, so a guest replacing Reflect.apply, the global JSON,
// or String (the global object stays writable) changes nothing here.
const apply = Reflect.apply;
const parseJson = JSON.parse;
const stringifyJson = JSON.stringify;
const toText = String;
const isArray = Array.isArray;
const ownKeys = Object.keys;
const defineProperty = Object.defineProperty;
const objectPrototype = Object.prototype;
const SafeError = Error;

/**
 * isolated-vm copies a thrown error's `name` only when its constructor is none of the built-in
 * error types it recreates; so a start failure crosses under the name the guest's error had.
 */
class StartFailure extends SafeError {}

/**
 * What crosses to the worker when the integration's top level throws: its name and message, and
 * as its stack the runtime's report (frames V8 captured, formatReport), never what the guest made
 * of them (the worker keeps the frames and the marker: stack-map.ts guestStack).
 */
function startFailure(error: unknown): Error {
  const report = reportOf(error);
  const failure = new StartFailure(report.message);
  defineProperty(failure, 'name', { value: report.name, writable: true, enumerable: false, configurable: true });
  defineProperty(failure, 'stack', { value: report.text, writable: true, enumerable: false, configurable: true });
  return failure;
}

/**
 * A fresh copy of a tree JSON.parse made: new objects and arrays all the way down, nothing shared
 * with the original (whose leaves are primitives). Properties are created as JSON.parse creates
 * them: a key the frozen Object.prototype also has (`constructor`, `toString`, `__proto__`) is
 * defined, not assigned, so it neither hits the prototype's setter nor sets the prototype.
 */
function copyJsonTree(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (isArray(value)) {
    const items: unknown[] = [];
    for (let index = 0; index < value.length; index++) items[index] = copyJsonTree(value[index]);
    return items;
  }
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  const keys = ownKeys(source);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    if (key in objectPrototype)
      defineProperty(copy, key, {
        value: copyJsonTree(source[key]),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    else copy[key] = copyJsonTree(source[key]);
  }
  return copy;
}

export interface DispatchDeps {
  /** What the integration protocol receives besides waitUntil (the runtime's own classes). */
  classes: { Response: unknown; Request: unknown; Headers: unknown };
  isResponse(value: unknown): boolean;
  serializeResponse(value: unknown): { response: SandboxResponse; streamed: BodyState | null } | null;
  /** The streams module, loaded: only ever asked for when a response body is a stream. */
  streams(): StreamsExports;
  log(level: LogLevel, text: string): void;
  fireTimer(id: number): void;
  /** Records the host parsed already (Envelope.parsedUrls). */
  seedUrls?(entries: unknown): void;
  /** What a bundle's wrapper function is called with (provided.ts): specifier → frozen module. */
  provided: unknown;
}

/** Whether a value carries createIntegration()'s protocol method (a getter that throws: no). */
function hasProtocol(value: unknown): boolean {
  try {
    return (
      value !== null &&
      (typeof value === 'object' || typeof value === 'function') &&
      typeof (value as Record<symbol, unknown>)[INTEGRATION_PROTOCOL] === 'function'
    );
  } catch {
    return false;
  }
}

export function verdictResponse(status: number, verdict: RuntimeVerdict, error: string): SandboxResponse {
  return {
    status,
    statusText: '',
    headers: [['content-type', 'application/json']],
    body: utf8Encode(stringifyJson({ error })),
    verdict,
  };
}

const VERDICTS: ReadonlySet<string> = new Set<RuntimeVerdict>([
  'no-handler',
  'component-not-found',
  'guest-error',
  'bad-entry',
]);

/** Lifts sandbox-api's verdict header into the typed field; the header itself never leaves. */
function liftVerdict(response: SandboxResponse): SandboxResponse {
  let verdict: RuntimeVerdict | undefined;
  const headers: [string, string][] = [];
  for (const pair of response.headers) {
    if (pair[0] === RUNTIME_VERDICT_HEADER) {
      if (VERDICTS.has(pair[1])) verdict = pair[1] as RuntimeVerdict;
    } else headers.push(pair);
  }
  if (headers.length === response.headers.length) return response;
  return verdict === undefined ? { ...response, headers } : { ...response, headers, verdict };
}

function describe(value: unknown): string {
  const shown = inspect(value);
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}

export function createRuntimeApi(deps: DispatchDeps): RuntimeApi {
  const log = (level: LogLevel, text: string): void => deps.log(level, capLine(text));
  const pending = new Map<string, Set<Promise<void>>>();
  let entry: unknown;
  /**
   * The environment the worker last sent as text, parsed once. The worker sends the text again
   * only when it changed (another installation, a new configuration); each dispatch hands the
   * guest its own copy of this, so nothing a guest changes reaches the next dispatch.
   */
  let environment: Envelope['environment'] | undefined;

  function waitUntil(eventId: string, work: unknown): void {
    let set = pending.get(eventId);
    if (set === undefined) pending.set(eventId, (set = new Set()));
    const tracked: Promise<void> = Promise.resolve(work).then(
      () => undefined,
      (error: unknown) => log('error', `A context.waitUntil() promise rejected: ${formatReport(error)}`),
    );
    const registry = set;
    registry.add(tracked);
    void tracked.then(() => {
      registry.delete(tracked);
      if (registry.size === 0 && pending.get(eventId) === registry) pending.delete(eventId);
    });
  }

  /** Response bodies being sent on as they are produced (StreamedBody 'runtime'), by id. */
  const bodies = new Map<number, { next(): Promise<Uint8Array | null>; cancel(reason: unknown): Promise<void> }>();
  let lastBody = 0;

  /**
   * How a streamed body leaves: a fetch's body nobody read goes on from the host itself ('fetch');
   * any other stream is pulled chunk by chunk by the worker ('runtime').
   */
  function streamBody(state: BodyState): StreamedBody {
    const streams = deps.streams();
    const host = state.stream === null ? state.host : streams.takeHostBody(state.stream);
    if (host !== null) {
      // The host reads it from now on: the Response's body is used, as if sent by the integration.
      state.host = null;
      state.used = true;
      return { kind: 'fetch', id: host.id };
    }
    const id = ++lastBody;
    bodies.set(id, streams.chunkReader(state.stream as NonNullable<BodyState['stream']>));
    return { kind: 'runtime', id };
  }

  /** The integration's answer as a SandboxResponse, or a logged 500 when it is not a sendable Response. */
  function answer(result: unknown, what: string): SandboxResponse & { streamed?: StreamedBody } {
    const serialized = deps.serializeResponse(result);
    if (serialized !== null) {
      const response = liftVerdict(serialized.response);
      return serialized.streamed === null ? response : { ...response, streamed: streamBody(serialized.streamed) };
    }
    log(
      'error',
      deps.isResponse(result)
        ? 'The integration returned a Response that cannot be sent (Response.error(), or its body was already read)'
        : `${what} must return a Response (the global Response class); it returned ${describe(result)}`,
    );
    return verdictResponse(500, 'guest-error', 'Internal server error');
  }

  async function runModuleWorker(
    worker: { fetch: (...args: unknown[]) => unknown },
    envelope: Envelope,
    eventId: string,
  ): Promise<SandboxResponse & { streamed?: StreamedBody }> {
    const RequestClass = deps.classes.Request as new (url: string, init: unknown) => unknown;
    const { url, init } = moduleWorkerRequest(envelope);
    const ctx = Object.freeze({
      waitUntil: (work: unknown) => waitUntil(eventId, work),
      // Cloudflare's "fail open to the origin": there is no origin behind an integration.
      passThroughOnException: () => undefined,
    });
    const result: unknown = await apply(worker.fetch, worker, [new RequestClass(url, init), Object.freeze({}), ctx]);
    const response = answer(result, "The integration's default export fetch(request, env, ctx)");
    // The runtime cannot see inside a module worker: only this status says "no handler".
    if (
      response.verdict === undefined &&
      response.status === MODULE_WORKER_NO_HANDLER_STATUS &&
      envelope.event.type !== 'fetch'
    ) {
      return { ...response, verdict: 'no-handler' };
    }
    return response;
  }

  async function run(envelope: Envelope): Promise<SandboxResponse & { streamed?: StreamedBody }> {
    const integration = entry;
    let handler: unknown;
    try {
      handler =
        integration !== null && integration !== undefined
          ? (integration as Record<symbol, unknown>)[INTEGRATION_PROTOCOL]
          : undefined;
    } catch {
      handler = undefined;
    }
    const moduleWorker = typeof handler !== 'function' && isModuleWorker(integration);
    if (typeof handler !== 'function' && !moduleWorker) {
      log('error', `${BAD_ENTRY_HELP}; the default export is ${describe(integration)}`);
      return verdictResponse(500, 'bad-entry', 'Internal server error');
    }
    deps.seedUrls?.((envelope as { parsedUrls?: unknown }).parsedUrls);
    const eventId = toText(envelope.event.eventId);
    if (moduleWorker)
      return runModuleWorker(integration as { fetch: (...args: unknown[]) => unknown }, envelope, eventId);
    const host = Object.freeze({
      waitUntil: (work: unknown) => waitUntil(eventId, work),
      // sandbox-api's report of a handler's error: frames V8 captured, never the guest's hook's.
      reportError: (prefix: unknown, error: unknown) => log('error', `${toText(prefix)} ${formatReport(error)}`),
      ...deps.classes,
    });
    const result: unknown = await apply(handler as (...args: unknown[]) => unknown, integration, [envelope, host]);
    return answer(result, "The integration's handler");
  }

  async function dispatch(envelope: Envelope): Promise<DispatchAnswer> {
    let response: SandboxResponse & { streamed?: StreamedBody };
    try {
      response = await run(envelope);
    } catch (error) {
      log('error', `Unhandled error in the integration: ${formatReport(error)}`);
      response = verdictResponse(500, 'guest-error', 'Internal server error');
    }
    let waitUntilPending = false;
    try {
      waitUntilPending = pending.has(toText(envelope.event.eventId));
    } catch {
      // A malformed envelope has no event id and so no waitUntil work either.
    }
    // The body as it may leave: bytes of its own, never a view on the guest's shared memory.
    return { ...response, body: crossing(response.body), waitUntilPending };
  }

  return Object.freeze({
    setEntry(namespace: unknown): void {
      entry = undefined;
      let ns: unknown = namespace;
      // A bundle's value is its wrapper function (host/manifest/bundle.ts wrapBundle): called here
      // with the provided modules, it runs the integration's top level and returns the namespace.
      // Its errors are the integration's start failing, so they propagate (unlike a bad shape).
      if (typeof namespace === 'function' && !hasProtocol(namespace)) {
        try {
          ns = apply(namespace, undefined, [deps.provided]);
        } catch (error) {
          throw startFailure(error);
        }
      }
      try {
        const value = ns as Record<PropertyKey, unknown> | null | undefined;
        entry = value !== null && value !== undefined && !hasProtocol(value) ? value.default : value;
      } catch {
        entry = undefined;
      }
    },
    dispatch,
    async dispatchWire(
      eventJson: string,
      environmentJson: string | null,
      fetchBody: Uint8Array | null,
      parsedUrlsJson: string | null,
    ): Promise<WireAnswer> {
      let envelope: Envelope;
      try {
        if (environmentJson !== null) {
          environment = undefined;
          environment = parseJson(toText(environmentJson)) as Envelope['environment'];
        }
        // No environment held (the text that should have set it did not parse): never run the guest
        // with an empty one; the envelope is answered as malformed instead.
        if (environment === undefined) throw new TypeError('no environment held');
        envelope = {
          event: parseJson(toText(eventJson)) as Envelope['event'],
          // The guest gets a copy; the parsed original stays here, out of its reach.
          environment: copyJsonTree(environment) as Envelope['environment'],
          fetchBody: fetchBody instanceof Uint8Array ? fetchBody : null,
          ...(parsedUrlsJson === null
            ? {}
            : { parsedUrls: parseJson(toText(parsedUrlsJson)) as Envelope['parsedUrls'] }),
        };
      } catch {
        // Only a host bug sends text that is not JSON; it is answered like a malformed envelope.
        envelope = { event: null, environment: {}, fetchBody: null } as unknown as Envelope;
      }
      const { body, ...meta } = await dispatch(envelope);
      return [stringifyJson(meta), body];
    },
    async drain(eventId: string): Promise<void> {
      const key = toText(eventId);
      for (let set = pending.get(key); set !== undefined && set.size > 0; set = pending.get(key)) {
        await Promise.all([...set]);
      }
      pending.delete(key);
    },
    fireTimer(id: number): void {
      deps.fireTimer(Number(id));
    },
    async pullBody(id: number): Promise<Uint8Array | null> {
      const key = Number(id);
      const body = bodies.get(key);
      if (body === undefined) return null;
      try {
        const chunk = await body.next();
        if (chunk === null) bodies.delete(key);
        // A guest's chunk may be a view on its shared memory: it leaves as a copy.
        return crossing(chunk);
      } catch (error) {
        bodies.delete(key);
        log('error', `The response body stream failed: ${formatReport(error)}`);
        throw new Error('the response body stream failed');
      }
    },
    async cancelBody(id: number, reason: string): Promise<void> {
      const key = Number(id);
      const body = bodies.get(key);
      if (body === undefined) return;
      bodies.delete(key);
      // Settles when the stream's cancel callback did: the host keeps the work open until then.
      await body.cancel(new TypeError(toText(reason))).catch(() => undefined);
    },
  });
}
