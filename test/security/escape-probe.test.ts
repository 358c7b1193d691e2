// A guest probing for a way out of its isolate through the real host: no Node globals, no
// constructor-chain escape to `process`, no dynamic import, no leaked bridge or isolated-vm
// object among the globals, and no host path or stack in the errors that cross the boundary.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';

let host: TestHost;
let report: Record<string, any>;

/** The globals the runtime is meant to provide on top of plain ECMAScript. */
const WEB_GLOBALS = [
  'fetch', 'Request', 'Response', 'Headers', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'crypto', 'atob', 'btoa',
  'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask', 'console', 'DOMException',
];

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

  it('cannot reach process through constructor chains', () => {
    expect(report.constructorChain).toBe('value:string:undefined');
    expect(report.thisConstructorChain).toMatch(/^threw:ReferenceError:process is not defined/);
  });

  it('cannot import Node modules dynamically', () => {
    expect(report.importFs).not.toBe('imported');
  });

  it('sees only ECMAScript built-ins and the documented web globals', () => {
    const ecmascript = new Set(Object.getOwnPropertyNames(globalThis).filter((name) => !/^(process|require|module|global|Buffer|structuredClone|performance|navigator|fetch|Request|Response|Headers|FormData|URL|URLSearchParams|TextEncoder|TextDecoder|crypto|atob|btoa|setTimeout|clearTimeout|setInterval|clearInterval|setImmediate|clearImmediate|queueMicrotask|console|DOMException|SharedArrayBuffer|Atomics|WebAssembly)$/.test(name)));
    const unexpected = (report.functionGlobals as string[]).filter((name) => !WEB_GLOBALS.includes(name) && !ecmascript.has(name));
    expect(unexpected).toEqual([]);
    expect((report.globals as string[]).some((name) => /ivm|bridge|__ih|isolate/i.test(name))).toBe(false);
  });

  it('gets a refused fetch as a plain TypeError without host paths or stacks', () => {
    expect(report.fetchError).toMatch(/^TypeError: fetch failed: .*169\.254\.169\.254/);
    expect(report.fetchError).not.toMatch(/\/work\/|node_modules|node:internal|host\/bridge|\.ts:\d+/);
  });

  it('sees only its own frames in its stacks', () => {
    expect(report.ownStack).not.toMatch(/\/work\/|node_modules|node:internal/);
  });

  it('receives the seed environment, not host internals', () => {
    expect(report.environmentKeys).toEqual(expect.arrayContaining(['apiEndpoint', 'apiTokens', 'integration', 'installation', 'secrets']));
  });

  it('leaves the host answering', async () => {
    expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ status: 'ok' });
  });
});
