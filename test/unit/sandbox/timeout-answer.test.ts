// A dispatch whose deadline passes is answered in the same turn of the worker's event loop as the
// deadline, with the lines its guest logged before, its isolate disposed by then; it does not wait
// for the isolate's pending call to reject. Lines the disposed isolate still sends never land in a
// later event. The realm comes from a test-made "pool" so that the test holds the isolated-vm
// isolate and can see when it is disposed.
import { afterEach, describe, expect, it } from 'vitest';
import { DispatchError, IntegrationIsolate, type WireEnvelope } from '../../../host/sandbox/isolate.ts';
import { prepareRealm, type PreparedRealm, type RuntimeSource } from '../../../host/sandbox/realm.ts';
import { buildRuntimeScript } from '../../../sandbox-api/runtime/build.ts';
import { bundleIntegration, envelope } from '../sandbox-api/harness.ts';
import { sandboxTestLimits } from './test-limits.ts';
import { runtimeModules } from '../../helpers/runtime-modules.ts';

const DEADLINE_MS = 300;
const LIMITS = sandboxTestLimits({ dispatchTimeoutMs: DEADLINE_MS, warmIsolatesPerWorker: 1 });

/** Logs without end: a line is nearly always waiting for the worker's thread when the deadline passes. */
const CHATTY = `
  import { createIntegration } from 'sandbox-api';
  export default createIntegration({
    fetch: (request) => {
      if (new URL(request.url).pathname === '/chatter') for (let i = 0; ; i++) console.log('old event line ' + i);
      return new Response('quiet');
    },
  });`;

/** Counts its requests; `/spin` logs a line, then never returns. */
const SPINNER = `
  import { createIntegration } from 'sandbox-api';
  let requests = 0;
  export default createIntegration({
    fetch: (request) => {
      requests++;
      if (new URL(request.url).pathname === '/spin') {
        console.log('spinning from now on');
        for (;;) {}
      }
      return new Response(String(requests));
    },
  });`;

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const dispose of cleanup.splice(0)) dispose();
});

function request(url: string): WireEnvelope {
  const { event, environment, fetchBody } = envelope({ type: 'fetch', request: { method: 'GET', url, headers: [] } });
  return {
    eventId: event.eventId,
    installationId: String(event.installationId ?? ''),
    eventJson: JSON.stringify(event),
    environmentJson: JSON.stringify(environment),
    fetchBody,
    requestUrl: url,
  };
}

/** An integration whose first isolate runs in `realm` (made here, so the test sees its isolate). */
async function spinnerIn(
  runtime: RuntimeSource,
  realm: PreparedRealm,
  source = SPINNER,
  lateLines: string[] = [],
  disposed?: () => void,
): Promise<IntegrationIsolate> {
  let offered: PreparedRealm | undefined = realm;
  const isolate = new IntegrationIsolate('spinner', await bundleIntegration(source), runtime, LIMITS, {
    fetch: async () => ({ ok: false, code: 'TypeError', message: 'offline' }),
    lateLog: (_eventIds, _level, text) => lateLines.push(text),
    ...(disposed ? { disposed } : {}),
    takeRealm: () => {
      const taken = offered;
      offered = undefined;
      return taken;
    },
  });
  cleanup.push(() => isolate.dispose('test over'));
  return isolate;
}

describe('the answer to a dispatch deadline', () => {
  it('is answered in the turn of the deadline, with the lines logged before it, the isolate disposed', async () => {
    const runtime = { code: await buildRuntimeScript(), modules: await runtimeModules() };
    const realm = await prepareRealm(runtime, LIMITS.memoryLimitMb, { warm: true });
    cleanup.push(() => realm.isolate.isDisposed || realm.isolate.dispose());
    // When the deadline disposes the isolate, a check-phase callback is queued: an answer that
    // waited for the isolate's call to reject (a later turn) would come after it.
    let turnOver = false;
    const isolate = await spinnerIn(runtime, realm, CHATTY, [], () => setImmediate(() => (turnOver = true)));

    const answered = await isolate.dispatch(request('https://spin.test/chatter')).then(
      () => ({ error: undefined, turnOver, disposed: realm.isolate.isDisposed }),
      (error: unknown) => ({ error, turnOver, disposed: realm.isolate.isDisposed }),
    );
    expect(answered.error).toBeInstanceOf(DispatchError);
    expect(answered.error).toMatchObject({
      failure: 'timeout',
      message: `the integration did not answer within ${DEADLINE_MS} ms`,
    });
    expect((answered.error as { logs: { text: string }[] }).logs.map((line) => line.text)).toContain(
      'old event line 0',
    );
    expect(answered.turnOver).toBe(false);
    expect(answered.disposed).toBe(true);
    expect(isolate.isLive).toBe(false);
  }, 60_000);

  it("runs the next dispatch in a fresh isolate, even one sent from the timeout's own answer", async () => {
    const runtime = { code: await buildRuntimeScript(), modules: await runtimeModules() };
    const realm = await prepareRealm(runtime, LIMITS.memoryLimitMb, { warm: true });
    cleanup.push(() => realm.isolate.isDisposed || realm.isolate.dispose());
    const isolate = await spinnerIn(runtime, realm);

    const next = await isolate.dispatch(request('https://spin.test/spin')).then(
      () => undefined,
      () => {
        expect(realm.isolate.isDisposed).toBe(true);
        return isolate.dispatch(request('https://spin.test/count'));
      },
    );
    // A fresh isolate: its first request (the timed-out one would have counted two).
    expect(new TextDecoder().decode(next?.response.body)).toBe('1');
  }, 60_000);

  it('never puts a line the disposed isolate still sends into the next event of the same installation', async () => {
    const runtime = { code: await buildRuntimeScript(), modules: await runtimeModules() };
    const realm = await prepareRealm(runtime, LIMITS.memoryLimitMb, { warm: true });
    cleanup.push(() => realm.isolate.isDisposed || realm.isolate.dispose());
    const lateLines: string[] = [];
    const isolate = await spinnerIn(runtime, realm, CHATTY, lateLines);

    const first = request('https://chatter.test/chatter');
    let timedOut: unknown;
    const next = await isolate.dispatch(first).then(
      () => undefined,
      (error: unknown) => {
        timedOut = error;
        // The same installation (envelope() gives every event the same one), at once.
        return isolate.dispatch(request('https://chatter.test/quiet'));
      },
    );
    expect(timedOut).toMatchObject({ failure: 'timeout' });
    expect((timedOut as { logs: { text: string }[] }).logs.length).toBeGreaterThan(0);
    expect(new TextDecoder().decode(next?.response.body)).toBe('quiet');
    expect(next?.logs.map((line) => line.text).filter((text) => text.startsWith('old event line'))).toEqual([]);
  }, 60_000);
});
