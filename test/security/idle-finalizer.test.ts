// FinalizationRegistry callbacks would let guest code run while its integration is idle (V8 calls
// them after a collection, with nothing in flight): CPU, fetches and log lines no request paid for.
// The runtime's FinalizationRegistry never calls its cleanup callback (the standard allows a host
// never to), so collections run nothing of the guest's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { startReceiver, type Receiver } from '../helpers/receivers.ts';

let host: TestHost;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver('ok');
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    allowEgress: [`127.0.0.1:${receiver.port}`],
    limits: { memoryLimitMb: 64 },
  });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});

const cleanupLines = () => host.logs.filter((line) => line.includes('cleanup ran for'));

describe('FinalizationRegistry in the sandbox', () => {
  it('exists for code that feature-detects it', async () => {
    const probe = await (await fetch(`${endpointOf(host, 'idle-finalizer')}?mode=probe`)).json();
    expect(probe).toMatchObject({ type: 'function', weakRef: 'function' });
  });

  it('never runs a cleanup callback, during later requests or while idle', async () => {
    const endpoint = endpointOf(host, 'idle-finalizer');
    const armed = await (
      await fetch(`${endpoint}?mode=arm&count=2000&url=${encodeURIComponent(`${receiver.url}/cleanup`)}`)
    ).json();
    expect(armed.armed).toBe(2000);
    // Enough allocation to force many collections of the 2,000 dead targets, in flight and between.
    for (let round = 0; round < 6; round++) {
      const churn = await fetch(`${endpoint}?mode=churn`);
      expect(churn.status).toBe(200);
    }
    // Idle now: the host's own answers prove the worker is responsive; no guest line appeared.
    await expectHostHealthy(host);
    expect(cleanupLines()).toEqual([]);
    expect(receiver.hits).toEqual([]);
  });
});
