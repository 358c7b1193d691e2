// A guest climbing constructor chains toward Node's `process` through the real host: the Function,
// AsyncFunction and generator constructors, sloppy `this`, every object the runtime hands it, errors
// caused by host refusals, V8 call sites and Function#caller all end inside the isolate's own realm.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
let report: Record<string, unknown>;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  const response = await fetch(endpointOf(host, 'constructor-chain-escape'));
  expect(response.status).toBe(200);
  report = await response.json();
});
afterAll(() => host?.close());

describe('constructor-chain escape', () => {
  it.each([
    'functionConstructor',
    'objectChain',
    'arrayChain',
    'generatorFunction',
    'sloppyThis',
    'globalRequire',
    'requestChain',
    'contextChain',
    'environmentChain',
    'hostErrorChain',
    'fetchErrorChain',
    'responseClassChain',
  ])('%s finds no process', (chain) => {
    expect(report[chain]).toBe('value:string:undefined');
  });

  it('finds no process through the async function and async generator constructors either', () => {
    expect(report.asyncFunction).toBe('value:undefined');
    expect(report.asyncGeneratorFunction).toBe('value:undefined');
  });

  it('gets no runtime function or receiver from V8 call sites, only its own frames', () => {
    const footholds = report.callSiteFootholds as string[];
    for (const foothold of footholds)
      expect(foothold).toMatch(/^integration:constructor-chain-escape:value:string:undefined$/);
  });

  it('sees null as the caller of a callback the runtime invokes', () => {
    expect(report.callerOfCallback).toBe('value:string:null');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
