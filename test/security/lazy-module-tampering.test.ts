// The runtime's lazily loaded modules (events, structured-clone, urlpattern, streams) arrive in an
// isolate after guest code has run: a guest can rebind globals first, hoping a module, or the
// freezing of what it exports, picks up its versions (a Set whose `has` always answers true would
// leave every export unfrozen), then change what the modules export to corrupt later dispatches,
// or look through them for what the runtime keeps to itself (AbortInternals, the module loader).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

const CLEAN = {
  seen: ['ping', 'abort'],
  reason: [true, 'AbortError'],
  timeout: 'TimeoutError',
  clone: [true, 'one', 3],
  refusal: ['DataCloneError', true],
  pattern: '7',
  now: 'number',
  writableSignal: true,
};

const ask = async (step?: string) => {
  const response = await fetch(`${endpointOf(host, 'lazy-module-tampering')}${step ? `?step=${step}` : ''}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
};

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('the lazily loaded runtime modules', () => {
  it('load with the intrinsics captured before guest code, whatever the guest rebound first', async () => {
    expect((await ask('rebind')).behaviour).toEqual(CLEAN);
  });

  it('export only frozen objects, everything they reach frozen, and nothing of the runtime internals', async () => {
    const { reached, unfrozen, internals } = await ask('enumerate');
    expect(reached).toBeGreaterThan(100);
    expect(unfrozen).toEqual([]);
    expect(internals).toEqual([]);
  });

  it('refuse every change to what they export (a sloppy-mode write is ignored, a strict one throws)', async () => {
    const { attempts, behaviour } = await ask('tamper');
    expect(Object.keys(attempts).length).toBeGreaterThanOrEqual(11);
    for (const [name, outcome] of Object.entries(attempts))
      expect(`${name}: ${outcome}`).toMatch(/: (refused: TypeError|ignored)$/);
    expect(behaviour).toEqual(CLEAN);
  });

  it('behave as built for the next dispatch', async () => {
    expect((await ask()).behaviour).toEqual(CLEAN);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
