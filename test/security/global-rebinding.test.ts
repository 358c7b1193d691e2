// A guest rebinding a global on its writable global object (String) to change how the runtime
// parses its next envelope: the environment and the request body it is handed stay the host's (the
// runtime captured what it uses before any guest code ran).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile/global-rebinding'] });
});
afterAll(() => host?.close());

async function ask(step?: string): Promise<{ installation: string | null; secrets: string[]; body: string }> {
  const response = await fetch(`${endpointOf(host, 'global-rebinding')}${step ? `?step=${step}` : ''}`, {
    method: 'POST',
    body: 'sent body',
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe('globals rebound by the guest', () => {
  it('do not change the environment or the body the runtime hands the next dispatch', async () => {
    const own = installationOf(host, 'global-rebinding');
    expect(await ask('rebind')).toEqual({ installation: own, secrets: [], body: 'sent body' });
    // The same isolate, with String rebound by the request before.
    expect(await ask()).toEqual({ installation: own, secrets: [], body: 'sent body' });
    expect(await ask()).toEqual({ installation: own, secrets: [], body: 'sent body' });
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
