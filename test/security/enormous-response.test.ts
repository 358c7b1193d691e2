// A guest answering with an enormous body: the worker refuses it after copying it out of the
// isolate, before anything crosses to the host process: 502 ERR_SANDBOX_BAD_RESPONSE with a
// small JSON error, the host's own memory does not grow with the bodies, and the integration and
// a neighbour keep answering.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const MAX_RESPONSE_BYTES = 1024 * 1024;
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    limits: { maxResponseBytes: MAX_RESPONSE_BYTES, memoryLimitMb: 64 },
  });
});
afterAll(() => host?.close());

const hostBytes = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

describe('enormous response body', () => {
  it('is answered 502 ERR_SANDBOX_BAD_RESPONSE with a small error, and never reaches the host process', async () => {
    const before = hostBytes();
    for (let round = 0; round < 5; round++) {
      const response = await fetch(`${endpointOf(host, 'enormous-response')}?mb=8`);
      expect(response.status).toBe(502);
      const text = await response.text();
      expect(text.length).toBeLessThan(512);
      expect(JSON.parse(text).error).toEqual({
        code: 'ERR_SANDBOX_BAD_RESPONSE',
        message: `the integration's response body exceeds ${MAX_RESPONSE_BYTES} bytes`,
      });
    }
    // 40 MB were produced in the sandbox; had they crossed to the host, its heap would show it.
    expect(hostBytes() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('keeps the integration answering normally', async () => {
    const response = await fetch(`${endpointOf(host, 'enormous-response')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
