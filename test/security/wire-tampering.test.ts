// The envelope enters the isolate as JSON text and the answer leaves as JSON text plus bytes
// (RuntimeApi.dispatchWire). A guest that replaces the global JSON with a liar changes neither:
// the runtime decodes and encodes with the JSON it captured before any guest code ran, every
// dispatch gets its own copy of its environment, and the worker still checks the answer it decodes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'test/fixtures/wire-tampering'] });
});
afterAll(() => host?.close());

describe('wire tampering', () => {
  it('answers the tampering dispatch with what the guest returned, nothing forged', async () => {
    const response = await fetch(`${endpointOf(host, 'wire-tampering')}?step=tamper`, {
      method: 'POST',
      headers: { 'x-probe': 'first' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-step')).toBe('tamper');
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.headers.get('x-forged')).toBeNull();
    expect(await response.json()).toEqual({
      method: 'POST',
      search: '?step=tamper',
      probe: 'first',
      installation: installationOf(host, 'wire-tampering'),
      jsonReplaced: false,
    });
  });

  it('gives the next dispatches their real event and a fresh environment while the liar is in place', async () => {
    for (const probe of ['second', 'third']) {
      const response = await fetch(`${endpointOf(host, 'wire-tampering')}?n=${probe}`, {
        method: 'PUT',
        headers: { 'x-probe': probe },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-step')).toBe('report');
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(await response.json()).toEqual({
        method: 'PUT',
        search: `?n=${probe}`,
        probe,
        installation: installationOf(host, 'wire-tampering'),
        jsonReplaced: true,
      });
    }
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
