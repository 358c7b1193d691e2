// Test harness: a real isolate running the built runtime, with Node-backed BridgePrimitives (URL
// and its setters, the host's text decoding, node:crypto, a stubbed fetch, real timers), and an
// esbuild bundler for tiny integrations with the host's own bundle options.
import { randomBytes } from 'node:crypto';
import { isSharedArrayBuffer } from 'node:util/types';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ivm from 'isolated-vm';
import { buildRuntimeScript, buildSnapshotScript } from '../../../sandbox-api/runtime/build.ts';
import { bootstrapRuntime, createRuntimeSnapshot } from '../../../host/sandbox/runtime-snapshot.ts';
import {
  createRealmResources,
  orderedPrimitives,
  realmImplementations,
  type PrimitiveImplementations,
} from '../../../host/sandbox/realm-primitives.ts';
import type { RealmOwner } from '../../../host/sandbox/realm.ts';
import { createTextDecoding } from '../../../host/bridge/text-decoding.ts';
import { createSubtle, type SubtleBridge, type SubtleOptions } from '../../../host/bridge/webcrypto.ts';
import { runtimeModules } from '../../helpers/runtime-modules.ts';
import {
  buildProblems,
  describeBuildProblem,
  integrationBuildOptions,
  wrapBundle,
  type BundleMode,
} from '../../../host/manifest/bundle.ts';
import { resolutionRoots } from '../../../host/manifest/resolution-roots.ts';
import { setUrlComponent } from '../../../host/bridge/primitives.ts';
import type {
  BridgeRequest,
  BridgeResponse,
  BridgeResult,
  Envelope,
  LogLevel,
  SandboxEvent,
  SandboxResponse,
  StreamedBody,
  UrlComponent,
  UrlRecord,
} from '../../../sandbox-api/runtime/contract.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));

/**
 * Bundles integration source exactly as the host does (its esbuild options and containment); the
 * script's value is its module namespace. Bare imports resolve up to the repository's node_modules
 * (its package.json makes it the workspace root), so tests can import @gitbook/runtime.
 */
export async function bundleIntegration(
  source: string,
  loader: 'ts' | 'tsx' = 'ts',
  variant: { jsxImportSource?: string; mode?: BundleMode } = {},
): Promise<string> {
  const offenses: string[] = [];
  let text = '';
  try {
    const result = await build({
      ...integrationBuildOptions(await resolutionRoots(HERE, HERE), offenses, new Map(), variant),
      stdin: { contents: source, loader, resolveDir: HERE, sourcefile: `integration.${loader}` },
    });
    text = result.outputFiles![0].text;
  } catch (error) {
    offenses.push(...buildProblems(error).map(describeBuildProblem));
  }
  if (offenses.length > 0) throw new Error(`the test integration does not bundle: ${offenses.join('; ')}`);
  return wrapBundle(text);
}

export function urlRecord(input: string, base?: string): UrlRecord | null {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    return null;
  }
  const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
  return { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash };
}

export const randomWithNode = (length: number): Uint8Array => new Uint8Array(randomBytes(length));

let snapshotMemo: Promise<ivm.ExternalCopy<ArrayBuffer>> | undefined;

/** The runtime's startup snapshot, built once per test file as a worker builds it. */
function runtimeSnapshot(): Promise<ivm.ExternalCopy<ArrayBuffer>> {
  snapshotMemo ??= buildSnapshotScript().then(createRuntimeSnapshot);
  return snapshotMemo;
}

/** The rest of a stubbed fetch's body, read on from the host (BridgeResponse.more). */
export interface StubBody {
  read(): Promise<Uint8Array | null>;
  cancel(): void;
}

export type FetchStub = (
  request: BridgeRequest,
) => Promise<BridgeResult<BridgeResponse> & { rest?: StubBody }> | (BridgeResult<BridgeResponse> & { rest?: StubBody });

export interface HarnessOptions {
  fetch?: FetchStub;
  /** Makes every synchronous primitive except log, and `subtle`, throw a host Error carrying a host path. */
  throwingPrimitives?: boolean;
  /**
   * How the realm is built: from the runtime's startup snapshot, as the worker does (the default),
   * or by running the runtime script and install() in a fresh isolate.
   */
  runtime?: 'snapshot' | 'install';
  /** Options of the realm's SubtleCrypto bridge (a smaller key table, a `late` answer). */
  subtle?: Partial<SubtleOptions>;
  /** Records every primitive call as the host receives it in `Harness.crossings`. */
  recordCrossings?: boolean;
}

/** One primitive call as the host received it: whether any of its arguments, deep, is or views shared memory. */
export interface Crossing {
  primitive: string;
  shared: boolean;
  /** How many byte views (typed arrays, DataViews) its arguments held. */
  views: number;
}

/** Walks what a primitive received (arrays, objects, views, buffers) for shared memory. */
function inspectCrossing(value: unknown, found: { shared: boolean; views: number }, seen = new Set<unknown>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (ArrayBuffer.isView(value)) {
    found.views++;
    if (isSharedArrayBuffer(value.buffer)) found.shared = true;
    return;
  }
  if (isSharedArrayBuffer(value)) {
    found.shared = true;
    return;
  }
  for (const item of Object.values(value)) inspectCrossing(item, found, seen);
}

export interface LogLine {
  level: LogLevel;
  text: string;
}

export function envelope(
  event: Partial<SandboxEvent> & { type: string },
  fetchBody: Uint8Array | null = null,
  environment: Record<string, unknown> = {},
): Envelope {
  return { event: { eventId: `evt-${Math.random().toString(36).slice(2)}`, ...event }, environment, fetchBody };
}

/** The implementations, each recording what it receives before it runs. */
function recording(implementations: PrimitiveImplementations, crossings: Crossing[]): PrimitiveImplementations {
  const wrapped = {} as Record<string, (...args: unknown[]) => unknown>;
  for (const [primitive, implementation] of Object.entries(implementations)) {
    wrapped[primitive] = (...args: unknown[]) => {
      const found = { shared: false, views: 0 };
      inspectCrossing(args, found);
      crossings.push({ primitive, ...found });
      return (implementation as (...call: unknown[]) => unknown)(...args);
    };
  }
  return wrapped as unknown as PrimitiveImplementations;
}

export class Harness {
  readonly logs: LogLine[] = [];
  readonly fetchCalls: BridgeRequest[] = [];
  /** Ids the runtime cancelled (fetchCancel): aborted fetches and abandoned bodies. */
  readonly fetchCancels: number[] = [];
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  /** The realm's SubtleCrypto bridge, with this isolate's key table (host/bridge/webcrypto.ts). */
  readonly subtle: SubtleBridge;
  /** The operation of every crypto.subtle call that reached the host, in order. */
  readonly subtleCalls: string[] = [];
  /** The runtime modules this isolate loaded, in order. */
  readonly loadedModules: string[] = [];
  /** Every primitive call as the host received it, in order (with HarnessOptions.recordCrossings). */
  readonly crossings: Crossing[] = [];
  #api: ivm.Reference<Record<string, unknown>>;
  #timers = new Map<number, NodeJS.Timeout>();

  private constructor(
    isolate: ivm.Isolate,
    context: ivm.Context,
    api: ivm.Reference<Record<string, unknown>>,
    subtle: Partial<SubtleOptions> = {},
  ) {
    this.isolate = isolate;
    this.context = context;
    this.#api = api;
    this.subtle = createSubtle({ alive: () => !isolate.isDisposed, ...subtle });
  }

  static async create(options: HarnessOptions = {}): Promise<Harness> {
    const fromSnapshot = (options.runtime ?? 'snapshot') === 'snapshot';
    const isolate = new ivm.Isolate({
      memoryLimit: 64,
      ...(fromSnapshot ? { snapshot: await runtimeSnapshot() } : {}),
    });
    const context = await isolate.createContext();
    const harness = new Harness(isolate, context, undefined as never, options.subtle);

    const boom = (): never => {
      throw new Error('host failure at /srv/host/secret/path.ts');
    };
    const stubFetch: FetchStub =
      options.fetch ??
      ((request) => ({
        ok: true,
        value: {
          status: 200,
          statusText: 'OK',
          headers: [['content-type', 'text/plain']],
          body: new TextEncoder().encode('stub'),
          url: request.url,
          redirected: false,
        },
      }));
    // Named functions: the in-isolate Callbacks carry these names, which lets a test look for them.
    function bridge_log(level: LogLevel, text: string): void {
      harness.logs.push({ level, text });
    }
    const bodies = new Map<number, StubBody>();
    async function bridge_fetch(request: BridgeRequest): Promise<BridgeResult<BridgeResponse>> {
      harness.fetchCalls.push(request);
      const { rest, ...result } = await stubFetch(request);
      if (rest !== undefined && result.ok && typeof request.id === 'number') {
        bodies.set(request.id, rest);
        return { ok: true, value: { ...result.value, body: new Uint8Array(0), more: true } };
      }
      return result;
    }
    async function bridge_fetchRead(id: number): Promise<BridgeResult<Uint8Array | null>> {
      const body = bodies.get(id);
      if (body === undefined) return { ok: false, code: 'TypeError', message: 'no such body' };
      try {
        const chunk = await body.read();
        if (chunk === null) bodies.delete(id);
        return { ok: true, value: chunk };
      } catch (error) {
        bodies.delete(id);
        return { ok: false, code: 'TypeError', message: (error as Error).message };
      }
    }
    function bridge_fetchCancel(id: number): void {
      harness.fetchCancels.push(id);
      bodies.get(id)?.cancel();
      bodies.delete(id);
    }
    function bridge_setTimer(id: number, delayMs: number): void {
      clearTimeout(harness.#timers.get(id));
      harness.#timers.set(
        id,
        setTimeout(() => {
          harness.#timers.delete(id);
          harness.fireTimer(id);
        }, delayMs),
      );
    }
    function bridge_clearTimer(id: number): void {
      clearTimeout(harness.#timers.get(id));
      harness.#timers.delete(id);
    }
    function bridge_parseUrl(input: string, base: string | undefined): UrlRecord | null {
      return options.throwingPrimitives ? boom() : urlRecord(input, base);
    }
    function bridge_setUrlComponent(href: string, component: UrlComponent, value: string): UrlRecord | null {
      return options.throwingPrimitives ? boom() : setUrlComponent(href, component, value);
    }
    const decodeText = createTextDecoding();
    function bridge_decodeText(
      bytes: Uint8Array,
      encoding: string,
      fatal: boolean,
      ignoreBOM: boolean,
      stream: number,
      last: boolean,
    ): BridgeResult<string> {
      return options.throwingPrimitives ? boom() : decodeText(bytes, encoding, fatal, ignoreBOM, stream, last);
    }
    function bridge_randomBytes(length: number): Uint8Array {
      return options.throwingPrimitives ? boom() : randomWithNode(length);
    }
    // The host's own SubtleCrypto bridge, with this isolate's key table.
    async function bridge_subtle(...args: Parameters<SubtleBridge['call']>): ReturnType<SubtleBridge['call']> {
      harness.subtleCalls.push(String(args[0]));
      return options.throwingPrimitives ? boom() : harness.subtle.call(...args);
    }

    const modules = await runtimeModules();
    // The host's implementations (realm-primitives.ts) for everything a test does not stand in for.
    const owner: RealmOwner = {
      log: bridge_log,
      fetch: bridge_fetch,
      fetchRead: bridge_fetchRead,
      fetchCancel: bridge_fetchCancel,
      setTimer: bridge_setTimer,
      clearTimer: bridge_clearTimer,
      lateAnswer: () => false,
    };
    const implementations = realmImplementations(() => owner, owner, modules, createRealmResources());
    const chosen: PrimitiveImplementations = {
      ...implementations,
      parseUrl: bridge_parseUrl,
      setUrlComponent: bridge_setUrlComponent,
      decodeText: bridge_decodeText,
      randomBytes: bridge_randomBytes,
      subtle: bridge_subtle,
      loadModule: (name: never) => {
        harness.loadedModules.push(String(name));
        return implementations.loadModule(name);
      },
    };
    const bound = orderedPrimitives(
      options.recordCrossings ? recording(chosen, harness.crossings) : chosen,
      // The runtime's own defences are what these tests look at: host errors cross unsanitized here,
      // rejections too (marked handled, so that Node does not report them before isolated-vm takes them).
      (fn) => fn,
      (fn) =>
        (...args) => {
          const answer = Promise.resolve().then(() => fn(...args));
          answer.catch(() => undefined);
          return answer;
        },
    );
    let api: ivm.Reference<Record<string, unknown>>;
    if (fromSnapshot) {
      api = (await bootstrapRuntime(context, bound, 30_000)) as ivm.Reference<Record<string, unknown>>;
    } else {
      const runtime = await isolate.compileScript(await buildRuntimeScript(), { filename: 'sandbox-runtime.js' });
      const installRef = (await runtime.run(context, { reference: true })) as ivm.Reference<
        (...args: unknown[]) => unknown
      >;
      api = installRef.applySync(undefined, bound as never[], { result: { reference: true } }) as ivm.Reference<
        Record<string, unknown>
      >;
    }
    harness.#api = api;
    return harness;
  }

  /** Evaluates the bundled integration and hands its namespace to setEntry. */
  async load(bundle: string): Promise<void> {
    const script = await this.isolate.compileScript(bundle, { filename: 'integration.js' });
    const namespace = (await script.run(this.context, { reference: true })) as ivm.Reference<unknown>;
    const setEntry = (await this.#api.get('setEntry', { reference: true })) as ivm.Reference<(ns: unknown) => void>;
    await setEntry.apply(undefined, [namespace.derefInto()]);
  }

  async loadSource(
    source: string,
    loader: 'ts' | 'tsx' = 'ts',
    variant: { jsxImportSource?: string; mode?: BundleMode } = {},
  ): Promise<void> {
    await this.load(await bundleIntegration(source, loader, variant));
  }

  async dispatch(value: Envelope): Promise<SandboxResponse & { streamed?: StreamedBody }> {
    const dispatch = (await this.#api.get('dispatch', { reference: true })) as ivm.Reference<
      (e: Envelope) => Promise<SandboxResponse>
    >;
    return (await dispatch.apply(undefined, [value], {
      arguments: { copy: true },
      result: { promise: true, copy: true },
    })) as SandboxResponse & { streamed?: StreamedBody };
  }

  /** The next chunk of a streamed response body of kind 'runtime' (RuntimeApi.pullBody). */
  async pullBody(id: number): Promise<Uint8Array | null> {
    const pull = (await this.#api.get('pullBody', { reference: true })) as ivm.Reference<
      (id: number) => Promise<Uint8Array | null>
    >;
    return (await pull.apply(undefined, [id], {
      arguments: { copy: true },
      result: { promise: true, copy: true },
    })) as Uint8Array | null;
  }

  /** Every chunk of a streamed response body of kind 'runtime', joined. */
  async pullAll(id: number): Promise<Uint8Array> {
    const parts: number[] = [];
    for (let chunk = await this.pullBody(id); chunk !== null; chunk = await this.pullBody(id)) parts.push(...chunk);
    return new Uint8Array(parts);
  }

  /** The worker's path: RuntimeApi.dispatchWire with JSON text, answered as [meta JSON, body]. */
  async dispatchWire(
    eventJson: string,
    environmentJson: string | null,
    fetchBody: Uint8Array | null = null,
    parsedUrlsJson: string | null = null,
  ): Promise<[string, Uint8Array]> {
    const dispatch = (await this.#api.get('dispatchWire', { reference: true })) as ivm.Reference<
      (...args: unknown[]) => Promise<[string, Uint8Array]>
    >;
    return (await dispatch.apply(undefined, [eventJson, environmentJson, fetchBody, parsedUrlsJson], {
      arguments: { copy: true },
      result: { promise: true, copy: true },
    })) as [string, Uint8Array];
  }

  async drain(eventId: string): Promise<void> {
    const drain = (await this.#api.get('drain', { reference: true })) as ivm.Reference<(id: string) => Promise<void>>;
    await drain.apply(undefined, [eventId], { result: { promise: true } });
  }

  fireTimer(id: number): void {
    if (this.isolate.isDisposed) return;
    const fire = this.#api.getSync('fireTimer', { reference: true }) as ivm.Reference<(id: number) => void>;
    // Queued as the isolate's next task, as the worker does (isolate.ts): a synchronous call could
    // run between a guest script and its microtask checkpoint and fire a timer before its microtasks.
    fire.apply(undefined, [id]).then(
      () => fire.release(),
      () => fire.release(),
    );
  }

  /** Evaluates guest-side code (an expression, possibly a promise) and copies its value out. */
  async evaluate<T = unknown>(code: string): Promise<T> {
    return (await this.context.eval(code, { promise: true, copy: true, filename: 'guest-test.js' })) as T;
  }

  dispose(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }
}

export const text = (response: SandboxResponse): string => new TextDecoder().decode(response.body);
export const json = (response: SandboxResponse): unknown => JSON.parse(text(response));
export const header = (response: SandboxResponse, name: string): string | undefined =>
  response.headers.find(([key]) => key === name.toLowerCase())?.[1];
