// The contract between the sandbox worker (host side) and the in-isolate runtime: the shapes that
// cross the isolate boundary, always as copies. Types and constants only: never functions or
// imports, because both sides import it and nothing host-side may leak into the isolate bundle.

/** What enters the isolate for every dispatch (docs/architecture.md). */
export interface Envelope {
  event: SandboxEvent;
  environment: Record<string, unknown>;
  /** The exact body bytes, or null when the trigger had none. */
  fetchBody: Uint8Array | null;
  /** URLs the worker already parsed (the request URL), so the runtime needs no hop out for them. */
  parsedUrls?: [string, UrlRecord][];
}

export interface SandboxEvent {
  eventId: string;
  type: string;
  installationId?: string;
  /** `fetch` events: the original request line and headers (the body is Envelope.fetchBody). */
  request?: { method: string; url: string; headers: [string, string][] };
  [field: string]: unknown;
}

/** What leaves the isolate for every dispatch: a serialized `Response`. */
export interface SandboxResponse {
  status: number;
  statusText?: string;
  headers: [string, string][];
  body: Uint8Array;
  /** Set when the answer is the runtime's own verdict rather than the integration's (see RuntimeVerdict). */
  verdict?: RuntimeVerdict;
}

/**
 * A response body that follows its answer (SandboxResponse.body is then empty): a stream of the
 * integration's, whose chunks the worker pulls with RuntimeApi.pullBody(id) as it sends them on, or
 * an outbound fetch's body nobody in the isolate read, which the worker sends on from the host
 * without the isolate (`id` is that fetch's BridgeRequest.id).
 */
export type StreamedBody = { kind: 'runtime'; id: number } | { kind: 'fetch'; id: number };

/**
 * The runtime's answer: the response, whether `context.waitUntil` work is still pending (so the
 * worker only drains when there is something to drain), and its body when that follows.
 */
export type DispatchAnswer = SandboxResponse & { waitUntilPending: boolean; streamed?: StreamedBody };

/**
 * The compact answer of RuntimeApi.dispatchWire: JSON text of the DispatchAnswer without its body
 * (status, statusText, headers, verdict, waitUntilPending), and the body bytes. One flat string
 * and one byte array cross the isolate boundary faster than an object graph copied field by field.
 */
export type WireAnswer = [meta: string, body: Uint8Array];

export type LogLevel = 'debug' | 'log' | 'info' | 'warn' | 'error';

/**
 * The line the runtime puts, in its report of an error (an unhandled one, a start failure), before
 * frames that the error's own `stack` gave because V8 holds no trace for it: text the integration
 * wrote, never frames V8 captured (stack-capture.ts). The worker keeps it in start failures (stack-map.ts).
 */
export const FRAMES_SET_BY_INTEGRATION = '    (frames as the integration set them, not captured by V8:)';

/** A request made by guest `fetch()`, as the worker receives it. */
export interface BridgeRequest {
  url: string;
  method: string;
  headers: [string, string][];
  body: Uint8Array | null;
  redirect: 'follow' | 'manual' | 'error';
  /**
   * The runtime's number for this fetch, unique in its isolate: what fetchRead and fetchCancel
   * name it by (its body after the answer, the request itself before). Absent: not cancellable.
   */
  id?: number;
}

export interface BridgeResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  /** The body, or its first bytes when `more`. */
  body: Uint8Array;
  url: string;
  redirected: boolean;
  /** The body goes on at the host: read the rest with fetchRead(request id). */
  more?: boolean;
}

/** Host-side failures cross as data, never as host Error objects (no stack, no path). */
export type BridgeResult<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

/** The parts of a WHATWG URL record the runtime's `URL` class exposes; parsed host-side by Node's URL. */
export interface UrlRecord {
  href: string;
  origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
}

/** The formats of the Compression standard. */
export type CompressionFormat = 'gzip' | 'deflate' | 'deflate-raw';

/** The UrlRecord parts the URL class's setters change (BridgePrimitives.setUrlComponent). */
export const URL_COMPONENTS = [
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
] as const;
export type UrlComponent = (typeof URL_COMPONENTS)[number];

/**
 * Longest input (URL plus base, or href plus a setter's value, in UTF-16 code units) that crosses
 * to the host's URL parser: each crossing copies it, and its result, outside the isolate's heap.
 * Roomy for data: URLs; a longer one is not a URL the runtime parses.
 */
export const MAX_URL_INPUT_LENGTH = 4 * 1024 * 1024;

/** The SubtleCrypto methods the host performs for the isolate (BridgePrimitives.subtle). */
export const SUBTLE_OPERATIONS = [
  'encrypt',
  'decrypt',
  'sign',
  'verify',
  'digest',
  'generateKey',
  'deriveKey',
  'deriveBits',
  'importKey',
  'exportKey',
  'wrapKey',
  'unwrapKey',
] as const;
export type SubtleOperation = (typeof SUBTLE_OPERATIONS)[number];

/**
 * What each argument of a SubtleCrypto method is, in order (its WebIDL signature): the runtime
 * copies by it, the host checks by it.
 */
export type SubtleArgumentKind = 'algorithm' | 'key' | 'bytes' | 'boolean' | 'usages' | 'format' | 'keyData' | 'length';
/**
 * The members of every algorithm dictionary WebCrypto defines, each with its type: all that
 * crosses of an algorithm.
 */
export const SUBTLE_ALGORITHM_MEMBERS: readonly (readonly [string, 'string' | 'number' | 'bytes' | 'hash' | 'key'])[] =
  [
    ['name', 'string'],
    ['namedCurve', 'string'],
    ['hash', 'hash'],
    ['length', 'number'],
    ['modulusLength', 'number'],
    ['saltLength', 'number'],
    ['tagLength', 'number'],
    ['iterations', 'number'],
    ['publicExponent', 'bytes'],
    ['iv', 'bytes'],
    ['additionalData', 'bytes'],
    ['counter', 'bytes'],
    ['label', 'bytes'],
    ['salt', 'bytes'],
    ['info', 'bytes'],
    ['public', 'key'],
  ];
export const SUBTLE_SIGNATURES: Readonly<Record<SubtleOperation, readonly SubtleArgumentKind[]>> = {
  encrypt: ['algorithm', 'key', 'bytes'],
  decrypt: ['algorithm', 'key', 'bytes'],
  sign: ['algorithm', 'key', 'bytes'],
  verify: ['algorithm', 'key', 'bytes', 'bytes'],
  digest: ['algorithm', 'bytes'],
  generateKey: ['algorithm', 'boolean', 'usages'],
  deriveKey: ['algorithm', 'key', 'algorithm', 'boolean', 'usages'],
  deriveBits: ['algorithm', 'key', 'length'],
  importKey: ['format', 'keyData', 'algorithm', 'boolean', 'usages'],
  exportKey: ['format', 'key'],
  wrapKey: ['format', 'key', 'key', 'algorithm'],
  unwrapKey: ['format', 'bytes', 'key', 'algorithm', 'algorithm', 'boolean', 'usages'],
};

/** A KeyAlgorithm as it crosses: only these members, each of its standard type. */
export interface KeyAlgorithmData {
  name: string;
  hash?: { name: string };
  length?: number;
  namedCurve?: string;
  modulusLength?: number;
  publicExponent?: Uint8Array;
}

/**
 * A CryptoKey as it crosses: its handle in the realm's key table on the host (the runtime keeps it
 * in a private field; guest code never sees it) and the key's public slots.
 */
export interface CryptoKeyDescriptor {
  handle: number;
  type: 'secret' | 'public' | 'private';
  extractable: boolean;
  algorithm: KeyAlgorithmData;
  usages: string[];
}

/** What a SubtleCrypto call resolves with, as it crosses. */
export type SubtleValue =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'jwk'; jwk: Record<string, unknown> }
  | { kind: 'key'; key: CryptoKeyDescriptor }
  | { kind: 'pair'; publicKey: CryptoKeyDescriptor; privateKey: CryptoKeyDescriptor };

/**
 * The failure code of a SubtleCrypto answer that came after the integration finished its work: the
 * runtime never settles the guest's promise with it (no guest code may run while it is idle).
 */
export const SUBTLE_ABANDONED = 'abandoned';

/** The bounds of SubtleCrypto work one isolate may ask of the host (docs/limits.md); both sides check them. */
export const SUBTLE_LIMITS = {
  /** Live keys in one isolate's key table. */
  keys: 2_048,
  /** Bytes of key material in one isolate's key table (a secret key's bytes; RSA's modulus and its private parts). */
  keyBytes: 16 * 1024 * 1024,
  /** Bytes of BufferSources plus characters of strings in one call's arguments. */
  inputBytes: 16 * 1024 * 1024,
  /** RSA generateKey modulusLength. */
  rsaModulusBits: 4_096,
  /** PBKDF2 iterations. */
  pbkdf2Iterations: 1_000_000,
  /** Bits a PBKDF2 deriveBits may ask for. */
  pbkdf2Bits: 4_096,
} as const;

/**
 * The runtime's modules that are not in the startup snapshot: each is evaluated in an isolate only
 * when its guest first touches one of its globals (BridgePrimitives.loadModule), so an integration
 * that never uses them pays nothing for them (docs/architecture.md).
 */
export const RUNTIME_MODULES = [
  'streams',
  'encoding',
  'encoding-streams',
  'compression',
  'events',
  'structured-clone',
  'urlpattern',
  'webcrypto',
  'shared-memory',
] as const;
export type RuntimeModuleName = (typeof RUNTIME_MODULES)[number];

/**
 * The names a runtime module's code sees as parameters instead of globals (build.ts wraps every
 * module in a function of these, in this order): the runtime passes the values it captured before
 * any guest code ran, so a guest that replaced a global (globalThis stays writable) changes nothing
 * in a module it loads afterwards. The ECMAScript intrinsics first, then the web names modules use.
 */
export const MODULE_SCOPE_NAMES = [
  'Object',
  'Function',
  'Array',
  'Number',
  'parseFloat',
  'parseInt',
  'Boolean',
  'String',
  'Symbol',
  'Date',
  'Promise',
  'RegExp',
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'JSON',
  'Math',
  'Intl',
  'ArrayBuffer',
  'Uint8Array',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'Uint8ClampedArray',
  'BigUint64Array',
  'BigInt64Array',
  'DataView',
  'Map',
  'BigInt',
  'Set',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'Proxy',
  'Reflect',
  'isFinite',
  'isNaN',
  'encodeURI',
  'encodeURIComponent',
  'decodeURI',
  'decodeURIComponent',
  'Iterator',
  'Float16Array',
  'globalThis',
  'self',
  'global',
  'window',
  'DOMException',
  'queueMicrotask',
  'structuredClone',
  'AbortController',
  'AbortSignal',
  'TextEncoder',
  'TextDecoder',
  'setTimeout',
  'clearTimeout',
  'console',
  'URL',
] as const;
export type ModuleScopeName = (typeof MODULE_SCOPE_NAMES)[number];

/**
 * The host primitives handed to the runtime's install function (and the snapshot's bootstrap), in
 * the order of PRIMITIVE_NAMES. Synchronous ones are isolated-vm Callbacks (arguments and results
 * are copied); those in ASYNC_PRIMITIVES cross as host References, which the runtime applies with
 * copied arguments and a promised, copied result. The runtime captures them in closures; none is
 * ever reachable from guest code.
 */
export interface BridgePrimitives {
  /** Console output of the guest, already formatted as text. */
  log(level: LogLevel, text: string): void;
  /** Outbound HTTP through the worker's egress policy (async: returns a promise in the isolate). */
  fetch(request: BridgeRequest): Promise<BridgeResult<BridgeResponse>>;
  /** Opens a zlib stream of the host for a CompressionStream (decompress: false) or DecompressionStream. */
  compressionOpen(format: CompressionFormat, decompress: boolean): BridgeResult<number>;
  /**
   * Feeds a compression stream `input` (at most 1 MB; `finish` ends its input) and returns what came
   * out, at most 256 KB; `more` means more is waiting: call again with an empty input first.
   */
  compressionWrite(
    id: number,
    input: Uint8Array | null,
    finish: boolean,
  ): Promise<BridgeResult<{ output: Uint8Array; more: boolean }>>;
  /** Closes a compression stream the guest cancelled or abandoned. */
  compressionClose(id: number): void;
  /** The next bytes of a fetch's body that went on at the host (BridgeResponse.more); null at its end. */
  fetchRead(id: number): Promise<BridgeResult<Uint8Array | null>>;
  /** The fetch is aborted or its body abandoned: the host stops it and closes its connection. */
  fetchCancel(id: number): void;
  /** Ask the worker to call the runtime's `fireTimer(id)` after `delayMs`. */
  setTimer(id: number, delayMs: number): void;
  clearTimer(id: number): void;
  /** WHATWG URL parsing by the host's spec implementation; null when the input is not a valid URL. */
  parseUrl(input: string, base: string | undefined): UrlRecord | null;
  /**
   * A WHATWG URL setter by the host's spec implementation: the record of `href` once `component`
   * is set to `value` (unchanged where the standard's setter ignores the value); null when `href`
   * does not parse or the input is malformed or too long.
   */
  setUrlComponent(href: string, component: UrlComponent, value: string): UrlRecord | null;
  /**
   * TextDecoder for every encoding but UTF-8, by the host's (ICU) decoder; `encoding` is a canonical
   * name. `stream` 0 decodes `bytes` on their own; another number is one of this realm's streams
   * (`{ stream: true }`): numbered in increasing order by the runtime, opened by its first chunk,
   * closed by `last` or an error; the host holds a few per realm (docs/architecture.md).
   */
  decodeText(
    bytes: Uint8Array,
    encoding: string,
    fatal: boolean,
    ignoreBOM: boolean,
    stream: number,
    last: boolean,
  ): BridgeResult<string>;
  randomBytes(length: number): Uint8Array;
  /**
   * One SubtleCrypto call, performed by the host's WebCrypto against this realm's key table (async):
   * the method's arguments as copies (a BufferSource as a Uint8Array, a CryptoKey as its handle;
   * modules/webcrypto-args.ts) and the handles of keys the isolate collected since its last call,
   * which the host releases first.
   */
  subtle(operation: SubtleOperation, args: unknown[], released: number[]): Promise<BridgeResult<SubtleValue>>;
  /**
   * The script text of one of RUNTIME_MODULES, which the runtime evaluates into its entry (a
   * function it calls with its own intrinsics). Throws for any other name, and for a second load.
   */
  loadModule(name: RuntimeModuleName): string;
}

/** The order in which install() and the snapshot's bootstrap receive the primitives. */
export const PRIMITIVE_NAMES = [
  'log',
  'fetch',
  'fetchRead',
  'fetchCancel',
  'setTimer',
  'clearTimer',
  'parseUrl',
  'setUrlComponent',
  'decodeText',
  'randomBytes',
  'subtle',
  'compressionOpen',
  'compressionWrite',
  'compressionClose',
  'loadModule',
] as const satisfies readonly (keyof BridgePrimitives)[];

/** The primitives that return a promise: they cross as References (see BridgePrimitives). */
export const ASYNC_PRIMITIVES: readonly (keyof BridgePrimitives)[] = [
  'fetch',
  'fetchRead',
  'subtle',
  'compressionWrite',
];

/** Fails to type-check when a primitive is missing from PRIMITIVE_NAMES. */
export type PrimitivesListed = [Exclude<keyof BridgePrimitives, (typeof PRIMITIVE_NAMES)[number]>] extends [never]
  ? true
  : never;

/** What the runtime's install function returns to the worker (held there as references). */
export interface RuntimeApi {
  /**
   * Hand the runtime the guest bundle's value: its wrapper function (called with the provided
   * sandbox-api modules, it runs the bundle's top level and returns the module namespace; what it
   * throws propagates) or a module namespace itself. The namespace's `default` is
   * createIntegration()'s value (or a module worker); an object carrying the protocol is taken as is.
   */
  setEntry(namespace: unknown): void;
  /** Run one envelope to completion of its response. Never rejects: failures become 5xx responses. */
  dispatch(envelope: Envelope): Promise<DispatchAnswer>;
  /**
   * The same as dispatch, for an envelope in its compact form (what the worker uses): the event and
   * the environment as JSON text (null: the same as the last one this isolate was sent), the body
   * bytes, and Envelope.parsedUrls as JSON text or null. The runtime keeps the last environment
   * parsed and hands each dispatch a fresh copy of it, so nothing a guest changes in one reaches
   * the next.
   */
  dispatchWire(
    eventJson: string,
    environmentJson: string | null,
    fetchBody: Uint8Array | null,
    parsedUrlsJson: string | null,
  ): Promise<WireAnswer>;
  /** Resolves when every `context.waitUntil` promise of that event has settled. */
  drain(eventId: string): Promise<void>;
  /** Called by the worker when a timer set through BridgePrimitives.setTimer is due. */
  fireTimer(id: number): void;
  /**
   * The next chunk of a StreamedBody of kind 'runtime' (null once it ended; then it is forgotten).
   * Rejects when the stream errors or a chunk is not a Uint8Array.
   */
  pullBody(id: number): Promise<Uint8Array | null>;
  /**
   * The worker will not pull a StreamedBody any more (its client left, a limit): cancels the stream,
   * settling when its cancel callback did (never rejects).
   */
  cancelBody(id: number, reason: string): Promise<void>;
}

/**
 * Inside the isolate, sandbox-api marks its own answers with this response header; the runtime
 * lifts it into SandboxResponse.verdict, so it never reaches a client as a header.
 */
export const RUNTIME_VERDICT_HEADER = 'x-sandbox-verdict';
export type RuntimeVerdict =
  | 'no-handler' // 406: an event type with no handler, or a fetch with no fetch handler
  | 'component-not-found' // 404: ui_render for an unknown componentId
  | 'guest-error' // 500: the guest threw something that is not an ExposableError
  | 'bad-entry'; // 500: the bundle's default export is not createIntegration()'s value
