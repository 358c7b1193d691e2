// Wraps the raw BridgePrimitives so nothing of the host ever reaches guest code: each primitive is
// called directly (never through .call/.apply, which a guest could patch), host exceptions are
// swallowed or replaced by fresh isolate errors, and results are re-checked and re-copied.
import type { RawPrimitives } from './bind.ts';
import {
  MAX_URL_INPUT_LENGTH,
  type BridgePrimitives,
  type BridgeResponse,
  type SubtleValue,
  type UrlRecord,
} from './contract.ts';

/** Same shape as the raw primitives: the wrapper changes what they may return, not their signatures. */
export type SafeBridge = BridgePrimitives;

type Raw<K extends keyof SafeBridge> = (...args: Parameters<SafeBridge[K]>) => unknown;

const URL_FIELDS = [
  'href',
  'origin',
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

const failure = (code: string, message: string): { ok: false; code: string; message: string } => ({
  ok: false,
  code,
  message,
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/** A fresh record of strings, or null for anything that is not an object. */
function copyUrlRecord(record: unknown): UrlRecord | null {
  if (!isRecord(record)) return null;
  const copy = {} as UrlRecord;
  for (const field of URL_FIELDS) copy[field] = String(record[field] ?? '');
  return copy;
}

function toBytes(value: unknown, what: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new Error(`${what}: the host returned no bytes`);
  return new Uint8Array(value);
}

function copyBridgeResponse(value: unknown): BridgeResponse | null {
  if (!isRecord(value) || !Array.isArray(value.headers)) return null;
  const headers: [string, string][] = [];
  for (const pair of value.headers) {
    if (Array.isArray(pair) && pair.length === 2) headers.push([String(pair[0]), String(pair[1])]);
  }
  const status = Number(value.status);
  if (!Number.isInteger(status) || status < 100 || status > 599) return null;
  return {
    status,
    statusText: String(value.statusText ?? ''),
    headers,
    body: value.body instanceof Uint8Array ? new Uint8Array(value.body) : new Uint8Array(0),
    url: String(value.url ?? ''),
    redirected: value.redirected === true,
    more: value.more === true,
  };
}

/** The realm's own eval, taken before any guest code runs (a guest may replace the global). */
const evaluate: (source: string) => unknown = globalThis.eval;

export function wrapPrimitives(raw: RawPrimitives): SafeBridge {
  const rawLog: Raw<'log'> = raw.log;
  const rawFetch: Raw<'fetch'> = raw.fetch;
  const rawFetchRead: Raw<'fetchRead'> = raw.fetchRead;
  const rawFetchCancel: Raw<'fetchCancel'> = raw.fetchCancel;
  const rawSetTimer: Raw<'setTimer'> = raw.setTimer;
  const rawClearTimer: Raw<'clearTimer'> = raw.clearTimer;
  const rawParseUrl: Raw<'parseUrl'> = raw.parseUrl;
  const rawSetUrlComponent: Raw<'setUrlComponent'> = raw.setUrlComponent;
  const rawDecodeText: Raw<'decodeText'> = raw.decodeText;
  const rawRandomBytes: Raw<'randomBytes'> = raw.randomBytes;
  const rawSubtle: Raw<'subtle'> = raw.subtle;
  const rawLoadModule: Raw<'loadModule'> = raw.loadModule;
  const rawCompressionOpen: Raw<'compressionOpen'> = raw.compressionOpen;
  const rawCompressionWrite: Raw<'compressionWrite'> = raw.compressionWrite;
  const rawCompressionClose: Raw<'compressionClose'> = raw.compressionClose;
  return {
    log(level, text) {
      try {
        rawLog(level, text);
      } catch {
        // logging must never fail the guest
      }
    },
    async fetch(request) {
      let result: unknown;
      try {
        result = await rawFetch(request);
      } catch {
        return failure('bridge_error', 'the host could not complete the request');
      }
      if (!isRecord(result)) return failure('bridge_error', 'the host returned no result');
      if (result.ok !== true)
        return failure(String(result.code ?? 'fetch_failed'), String(result.message ?? 'request failed'));
      const value = copyBridgeResponse(result.value);
      return value === null ? failure('bridge_error', 'the host returned a malformed response') : { ok: true, value };
    },
    async fetchRead(id) {
      let result: unknown;
      try {
        result = await rawFetchRead(id);
      } catch {
        return failure('bridge_error', 'the host could not read the response body');
      }
      if (!isRecord(result)) return failure('bridge_error', 'the host returned no result');
      if (result.ok !== true)
        return failure(String(result.code ?? 'fetch_failed'), String(result.message ?? 'reading the body failed'));
      if (result.value === null) return { ok: true, value: null };
      return result.value instanceof Uint8Array
        ? { ok: true, value: new Uint8Array(result.value) }
        : failure('bridge_error', 'the host returned no bytes');
    },
    fetchCancel(id) {
      try {
        rawFetchCancel(id);
      } catch {
        // nothing left to cancel
      }
    },
    setTimer(id, delayMs) {
      try {
        rawSetTimer(id, delayMs);
      } catch {
        // a timer the worker refuses simply never fires
      }
    },
    clearTimer(id) {
      try {
        rawClearTimer(id);
      } catch {
        // nothing to undo
      }
    },
    parseUrl(input, base) {
      // Longer inputs are refused before they are copied out (the host refuses them too).
      if (input.length + (base?.length ?? 0) > MAX_URL_INPUT_LENGTH) return null;
      let record: unknown;
      try {
        record = rawParseUrl(input, base);
      } catch {
        return null;
      }
      return copyUrlRecord(record);
    },
    setUrlComponent(href, component, value) {
      if (href.length + value.length > MAX_URL_INPUT_LENGTH) return null;
      let record: unknown;
      try {
        record = rawSetUrlComponent(href, component, value);
      } catch {
        return null;
      }
      return copyUrlRecord(record);
    },
    decodeText(bytes, encoding, fatal, ignoreBOM, stream, last) {
      let result: unknown;
      try {
        result = rawDecodeText(bytes, encoding, fatal, ignoreBOM, stream, last);
      } catch {
        return failure('bridge_error', 'the host could not decode the text');
      }
      if (!isRecord(result)) return failure('bridge_error', 'the host returned no result');
      if (result.ok === true) return { ok: true, value: String(result.value) };
      return failure(String(result.code ?? 'decode_failed'), String(result.message ?? 'decoding failed'));
    },
    randomBytes(length) {
      let bytes: unknown;
      try {
        bytes = rawRandomBytes(length);
      } catch {
        throw new Error('crypto: the host could not provide random bytes');
      }
      const copy = toBytes(bytes, 'crypto');
      if (copy.length !== length) throw new Error('crypto: the host returned the wrong number of random bytes');
      return copy;
    },
    async subtle(operation, args, released) {
      let result: unknown;
      try {
        result = await rawSubtle(operation, args, released);
      } catch {
        return failure('OperationError', 'the host could not complete this call');
      }
      if (!isRecord(result)) return failure('OperationError', 'the host returned no result');
      if (result.ok !== true)
        return failure(String(result.code ?? 'OperationError'), String(result.message ?? 'the operation failed'));
      // Its shape is checked member by member by the webcrypto module (modules/webcrypto-results.ts),
      // which the snapshot does not carry.
      return { ok: true, value: result.value as SubtleValue };
    },
    compressionOpen(format, decompress) {
      let result: unknown;
      try {
        result = rawCompressionOpen(format, decompress);
      } catch {
        return failure('bridge_error', 'the host could not open a compression stream');
      }
      if (!isRecord(result)) return failure('bridge_error', 'the host returned no result');
      if (result.ok !== true)
        return failure(String(result.code ?? 'TypeError'), String(result.message ?? 'compression failed'));
      return typeof result.value === 'number'
        ? { ok: true, value: result.value }
        : failure('bridge_error', 'the host returned no stream');
    },
    async compressionWrite(id, input, finish) {
      let result: unknown;
      try {
        result = await rawCompressionWrite(id, input, finish);
      } catch {
        return failure('bridge_error', 'the host could not run the compression stream');
      }
      if (!isRecord(result)) return failure('bridge_error', 'the host returned no result');
      if (result.ok !== true)
        return failure(String(result.code ?? 'TypeError'), String(result.message ?? 'compression failed'));
      const value = result.value;
      if (!isRecord(value) || !(value.output instanceof Uint8Array))
        return failure('bridge_error', 'the host returned no bytes');
      return { ok: true, value: { output: new Uint8Array(value.output), more: value.more === true } };
    },
    compressionClose(id) {
      try {
        rawCompressionClose(id);
      } catch {
        // nothing left to close
      }
    },
    loadModule(name) {
      let source: unknown;
      try {
        source = rawLoadModule(name);
      } catch {
        throw new Error(`the runtime could not load its ${name} module`);
      }
      if (typeof source !== 'string') throw new Error(`the runtime could not load its ${name} module`);
      // Indirect: evaluated in the global scope, where the script's value is the module's entry.
      const entry: unknown = evaluate(source);
      if (typeof entry !== 'function') throw new Error(`the runtime could not load its ${name} module`);
      return entry as never;
    },
  };
}
