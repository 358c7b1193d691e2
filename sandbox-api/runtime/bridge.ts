// Wraps the raw BridgePrimitives so nothing of the host ever reaches guest code: each primitive is
// called directly (never through .call/.apply, which a guest could patch), host exceptions are
// swallowed or replaced by fresh isolate errors, and results are re-checked and re-copied.
import type { RawPrimitives } from './bind.ts';
import type { BridgePrimitives, BridgeResponse, SubtleValue, UrlRecord } from './contract.ts';

/** Same shape as the raw primitives: the wrapper changes what they may return, not their signatures. */
export type SafeBridge = BridgePrimitives;

type Raw<K extends keyof SafeBridge> = (...args: Parameters<SafeBridge[K]>) => unknown;

const URL_FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const;

const failure = (code: string, message: string): { ok: false; code: string; message: string } => ({ ok: false, code, message });

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
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
  };
}

export function wrapPrimitives(raw: RawPrimitives): SafeBridge {
  const rawLog: Raw<'log'> = raw.log;
  const rawFetch: Raw<'fetch'> = raw.fetch;
  const rawSetTimer: Raw<'setTimer'> = raw.setTimer;
  const rawClearTimer: Raw<'clearTimer'> = raw.clearTimer;
  const rawParseUrl: Raw<'parseUrl'> = raw.parseUrl;
  const rawDecodeText: Raw<'decodeText'> = raw.decodeText;
  const rawRandomBytes: Raw<'randomBytes'> = raw.randomBytes;
  const rawSubtle: Raw<'subtle'> = raw.subtle;
  const rawLoadModule: Raw<'loadModule'> = raw.loadModule;
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
      if (result.ok !== true) return failure(String(result.code ?? 'fetch_failed'), String(result.message ?? 'request failed'));
      const value = copyBridgeResponse(result.value);
      return value === null ? failure('bridge_error', 'the host returned a malformed response') : { ok: true, value };
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
      let record: unknown;
      try {
        record = rawParseUrl(input, base);
      } catch {
        return null;
      }
      if (!isRecord(record)) return null;
      const copy = {} as UrlRecord;
      for (const field of URL_FIELDS) copy[field] = String(record[field] ?? '');
      return copy;
    },
    decodeText(bytes, label, fatal, ignoreBOM) {
      let result: unknown;
      try {
        result = rawDecodeText(bytes, label, fatal, ignoreBOM);
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
      if (result.ok !== true) return failure(String(result.code ?? 'OperationError'), String(result.message ?? 'the operation failed'));
      // Its shape is checked member by member by the webcrypto module (modules/webcrypto-results.ts),
      // which the snapshot does not carry.
      return { ok: true, value: result.value as SubtleValue };
    },
    loadModule(name) {
      let entry: unknown;
      try {
        entry = rawLoadModule(name);
      } catch {
        throw new Error(`the runtime could not load its ${name} module`);
      }
      if (typeof entry !== 'function') throw new Error(`the runtime could not load its ${name} module`);
      return entry;
    },
  };
}
