// A crypto.subtle call the integration neither awaits nor hands to waitUntil, left running (an
// RSA-4096 key generation) while it answers at once: settling it afterwards would run the guest's
// continuation while nothing is in flight, outside any deadline, where it spins forever. As with a
// late fetch, the answer is abandoned: the continuation never runs, one line says so, and the
// integration keeps answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('a crypto.subtle call answered after its event ended', () => {
  it('never runs the continuation, and the integration keeps answering', async () => {
    const endpoint = endpointOf(host, 'webcrypto-keygen');
    const answered = await fetch(`${endpoint}?mode=idle`);
    expect(await answered.text()).toBe('answered before the key was made');
    await waitFor(() =>
      host.logs.some(
        (line) =>
          line.includes('[webcrypto-keygen') &&
          line.includes('a crypto.subtle call answered after the integration finished its work'),
      ),
    );
    const next = await fetch(`${endpoint}?mode=ok`);
    expect(next.status).toBe(200);
    expect(await next.text()).toBe('fine 2');
    expect(host.logs.some((line) => line.includes('continuation ran'))).toBe(false);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
