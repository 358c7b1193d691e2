// A guest probing the isolate for anything of the host through the real host: no Node or
// isolated-vm globals and no leaked bridge function among the globals, no Atomics or WebAssembly
// (not even by a roundabout way), no shared memory through structuredClone, and every bridge primitive's failure
// arrives as a plain error of the isolate's own realm, without host stack, path or extra fields.
// (Constructor chains and module access have their own files.)
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
let report: Record<string, any>;

/** The globals the runtime is meant to provide on top of plain ECMAScript. */
const WEB_GLOBALS = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'crypto',
  'atob',
  'btoa',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'queueMicrotask',
  'console',
  'DOMException',
  'CryptoKey',
  'Blob',
  'File',
  'FormData',
  'structuredClone',
  'Event',
  'EventTarget',
  'CustomEvent',
  'AbortController',
  'AbortSignal',
  'Performance',
  'Navigator',
  'URLPattern',
];
const HOST_DETAIL = /\/work\/|\/home\/|node_modules|node:internal|host\/bridge|isolated-vm|\.ts:\d+/;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  const response = await fetch(endpointOf(host, 'escape-probe'));
  expect(response.status).toBe(200);
  report = await response.json();
});
afterAll(() => host?.close());

describe('escape probe', () => {
  it('finds no Node or isolated-vm globals', () => {
    for (const [name, type] of Object.entries(report.typeofs)) expect(`${name}:${type}`).toBe(`${name}:undefined`);
  });

  it(
    'has no WebAssembly memory to share, not even through a roundabout way, and structuredClone refuses shared ' +
      'memory',
    () => {
      expect(report.sharedMemory.message).toMatch(/undefined/);
      expect(report.sharedViaStructuredClone).toEqual(['[object ArrayBuffer]', 'DataCloneError']);
    },
  );

  it('sees only ECMAScript built-ins and the documented web globals', () => {
    const notEcmascript = new Set(
      (
        'process require module global Buffer structuredClone performance navigator fetch Request Response Headers ' +
        'FormData URL URLSearchParams TextEncoder TextDecoder crypto atob btoa setTimeout clearTimeout setInterval ' +
        'clearInterval setImmediate clearImmediate queueMicrotask console DOMException Atomics WebAssembly'
      ).split(' '),
    );
    const ecmascript = new Set(Object.getOwnPropertyNames(globalThis).filter((name) => !notEcmascript.has(name)));
    const unexpected = (report.functionGlobals as string[]).filter(
      (name) => !WEB_GLOBALS.includes(name) && !ecmascript.has(name),
    );
    expect(unexpected).toEqual([]);
    expect((report.globals as string[]).some((name) => /ivm|bridge|__ih|isolate/i.test(name))).toBe(false);
  });

  it.each([
    ['fetchRefused', 'TypeError', /^fetch failed: destination 169\.254\.169\.254 .* link-local/],
    ['fetchScheme', 'TypeError', /^fetch failed: scheme "file:" is not allowed/],
    ['fetchCredentials', 'TypeError', /credentials/],
    ['urlParse', 'TypeError', /^Invalid URL/],
    ['textDecoderLabel', 'RangeError', /encoding label/],
    ['textDecoderFatal', 'TypeError', /./],
    ['randomTooMany', 'QuotaExceededError', /./],
    ['digestUnknown', 'NotSupportedError', /./],
    ['hmacBadKey', 'DataError', /./],
    ['timerString', 'TypeError', /string callbacks are not supported/],
  ])('gets %s as a plain %s of its own realm, without host details', (key, name, message) => {
    const error = report.bridgeErrors[key];
    expect(error).toMatchObject({ name, isIsolateError: true });
    expect(error.message).toMatch(message);
    expect(
      error.ownKeys.filter((k: string) => k !== 'stack' && k !== 'message' && k !== 'name' && k !== 'code'),
    ).toEqual([]);
    expect(`${error.message}\n${error.stack}`).not.toMatch(HOST_DETAIL);
  });

  it('finds nothing of the host in Blob, File, FormData or a parsed multipart body', () => {
    const probe = report.formData;
    expect(probe.ownKeys).toEqual([0, 0, 0, 0, 0]);
    expect(probe.realm).toEqual([true, true, true, true]);
    expect(probe.constructorChains).toEqual([true, true, true, true, true]);
    expect(probe.frozen).toEqual([true, true, true, true, true, true]);
    for (const [key, message] of [
      ['multipartParse', /^Failed to parse body as FormData/],
      ['formDataFromForm', /HTML form elements do not exist/],
      ['blobParts', /cannot be converted to a sequence/],
    ] as const) {
      const error = probe.errors[key];
      expect(error, key).toMatchObject({ name: 'TypeError', isIsolateError: true });
      expect(error.message, key).toMatch(message);
      expect(
        error.ownKeys.filter((k: string) => k !== 'stack' && k !== 'message'),
        key,
      ).toEqual([]);
      expect(`${error.message}\n${error.stack}`, key).not.toMatch(HOST_DETAIL);
    }
  });

  it("sees only its own and the runtime's frames in its stacks", () => {
    expect(report.ownStack).not.toMatch(HOST_DETAIL);
  });

  it('receives the seed environment, not host internals', () => {
    expect(report.environmentKeys).toEqual(
      expect.arrayContaining(['apiEndpoint', 'apiTokens', 'integration', 'installation', 'secrets']),
    );
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
