// A guest changing the intrinsics no global names, so that a freeze of the globals alone misses
// them: %SetIteratorPrototype%.next replaced would make `[...set]` return [] for the runtime and
// every later dispatch; likewise the other iterator, generator and async prototypes, iterator
// helpers, Intl segment iterators, V8's call sites and `stack` accessors, the runtime's own body
// stream and its Headers, URLSearchParams and FormData iterator prototypes. The guest enumerates
// every object reachable in its realm (from the global object and from each hidden intrinsic) and
// finds none unfrozen but the documented exceptions; every change is refused, and neither the next
// dispatch nor a second installation sharing the isolate sees one.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/platform-api.ts';

let host: TestHost;
let secondEndpoint: string;

const CLEAN = {
  set: [1, 2],
  map: [[1, 2]],
  array: [1, 2],
  string: ['a', 'b'],
  matchAll: ['1', '2'],
  generator: [1],
  asyncGenerator: [1, 2],
  helper: [10, 20],
  segments: ['a', 'b'],
  typedArray: [7],
  headers: [['a', '1']],
  searchParams: ['a'],
  body: 'real body',
  requestBody: 'sent body',
  callSiteForged: false,
};

const ask = async (endpoint: string, step?: string) => {
  const response = await fetch(`${endpoint}${step ? `?step=${step}` : ''}`, { method: 'POST', body: 'sent body' });
  expect(response.status).toBe(200);
  return response.json();
};

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  secondEndpoint = (await install(host, 'hidden-intrinsics', { organization: 'globex', target: 'organization' })).urls
    .publicEndpoint;
});
afterAll(() => host?.close());

describe('hidden intrinsics', () => {
  it(
    'are all reachable, and frozen with everything reachable from them, like every global but globalThis and ' +
      'console',
    async () => {
      const { reached, unfrozen, missing } = await ask(endpointOf(host, 'hidden-intrinsics'), 'enumerate');
      expect(missing).toEqual([]);
      expect(reached).toBeGreaterThan(1_000);
      expect(unfrozen).toEqual([]);
    },
  );

  it('refuse every change the guest tries (a sloppy-mode write is ignored, a strict one throws)', async () => {
    const { attempts, behaviour } = await ask(endpointOf(host, 'hidden-intrinsics'), 'tamper');
    expect(Object.keys(attempts).length).toBeGreaterThanOrEqual(20);
    for (const [name, outcome] of Object.entries(attempts))
      expect(`${name}: ${outcome}`).toMatch(/: (refused: TypeError|ignored)$/);
    expect(behaviour).toEqual(CLEAN);
  });

  it('behave as built for the next dispatch of the same installation', async () => {
    expect((await ask(endpointOf(host, 'hidden-intrinsics'))).behaviour).toEqual(CLEAN);
  });

  it('behave as built for another installation sharing the isolate', async () => {
    const other = await ask(secondEndpoint);
    expect(other.installation).not.toBe((await ask(endpointOf(host, 'hidden-intrinsics'))).installation);
    expect(other.behaviour).toEqual(CLEAN);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
