// Slow crypto as a way to hold a worker: an integration that makes the host generate RSA-4096 keys
// one after another until its deadline, next to a neighbour on the same worker. Node's WebCrypto
// generates on libuv's thread pool, so the worker's main thread keeps turning (measured at the
// bridge: its event loop turns while a generation runs) and the neighbour answers while the
// attack is still going; the attack gets its 504 at the deadline with a generation in flight, its
// isolate disposed (the next request is served by a fresh one), and the host stays healthy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realmSubtle } from '../helpers/realm-subtle.ts';
import { endpointOf, newestEvent, startTestHost, waitFor, warmUp, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';
import { startReceiver, type Receiver } from '../helpers/receivers.ts';

const DEADLINE_MS = 3_000;
let host: TestHost;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver('ok');
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    workers: 1,
    allowEgress: [`127.0.0.1:${receiver.port}`],
    limits: { dispatchTimeoutMs: DEADLINE_MS },
  });
  await warmUp(`${endpointOf(host, 'webcrypto-keygen')}?mode=ok`);
  await warmUp(endpointOf(host, 'hello'), { method: 'POST' });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});

describe('RSA-4096 key generation without end', () => {
  it('runs off the main thread: the event loop keeps turning while a generation runs', async () => {
    const realm = await realmSubtle();
    try {
      let turns = 0;
      let done = false;
      const tick = (): void => {
        if (done) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const answer = await realm.subtle(
        'generateKey',
        [
          { name: 'RSA-PSS', modulusLength: 4096, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
          false,
          ['sign'],
        ],
        [],
      );
      done = true;
      expect(answer).toMatchObject({ ok: true, value: { kind: 'pair' } });
      // A generation on the main thread would hold it for the whole generation: no turn at all.
      expect(turns).toBeGreaterThan(10);
    } finally {
      realm.isolate.dispose();
    }
  });

  it('leaves the neighbour on its worker answering, and is answered 504 at the deadline', async () => {
    expect(host.supervisor.workerOf('webcrypto-keygen')).toBe(host.supervisor.workerOf('hello'));
    let settled = false;
    const attack = fetch(
      `${endpointOf(host, 'webcrypto-keygen')}?signal=${encodeURIComponent(`${receiver.url}/generating`)}`,
    ).finally(() => (settled = true));
    await waitFor(() => receiver.hits.includes('/generating'));
    const during = await neighbourAnswers(host);
    expect(during).toMatchObject({ status: 200, body: { received: true } });
    expect(settled, 'the attack was answered before the neighbour').toBe(false);
    const response = await attack;
    expect(response.status).toBe(504);
    expect((await response.json()).error).toEqual({
      code: 'ERR_SANDBOX_TIMEOUT',
      message: `the integration did not answer within ${DEADLINE_MS} ms`,
    });
    const logged = await newestEvent(host, 'webcrypto-keygen');
    expect(logged).toMatchObject({ status: 504, errorCode: 'ERR_SANDBOX_TIMEOUT' });
    expect(logged.durationMs).toBeGreaterThanOrEqual(DEADLINE_MS - 1);
    expect(logged.durationMs).toBeLessThan(DEADLINE_MS + 4_000);
  });

  it('is served by a fresh isolate afterwards', async () => {
    const response = await fetch(`${endpointOf(host, 'webcrypto-keygen')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine 1');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
