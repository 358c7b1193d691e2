// On an offenders' worker the dispatch deadline runs from the dispatch's arrival (isolate.ts
// IsolateOptions 'arrival'): a realm the host is still building when the deadline passes (its
// guest threads held by the offenders' CPU quota) must not make the answer late. The test injects
// the slow build through `takeRealm` (a realm handed over only when the test says so): the
// dispatch is answered with a timeout marked `beforeGuest` (not the integration's offence) while
// the realm is still held back; the realm built afterwards runs no guest code until the next
// dispatch of the same integration, which uses it; disposed meanwhile, it is freed, never reused.
// And an integration cannot pass its own slowness off as the host's: a deadline that passes in its
// top level is an ordinary timeout, its isolate disposed.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DispatchError, IntegrationIsolate, type WireEnvelope } from '../../host/sandbox/isolate.ts';
import { prepareRealm, type PreparedRealm, type RuntimeSource } from '../../host/sandbox/realm.ts';
import { buildRuntimeScript } from '../../sandbox-api/runtime/build.ts';
import { bundleIntegration, envelope } from '../unit/sandbox-api/harness.ts';
import { sandboxTestLimits } from '../unit/sandbox/test-limits.ts';
import { waitFor } from '../helpers/host.ts';
import { runtimeModules } from '../helpers/runtime-modules.ts';

const DEADLINE_MS = 1_000;
const LIMITS = sandboxTestLimits({ dispatchTimeoutMs: DEADLINE_MS });

/** Counts how often its top level ran and its requests, and says so in a log line. */
const COUNTER = `
  import { createIntegration } from 'sandbox-api';
  globalThis.topLevelRuns = (globalThis.topLevelRuns ?? 0) + 1;
  console.log('top level ran');
  let requests = 0;
  export default createIntegration({ fetch: () => new Response(globalThis.topLevelRuns + '/' + (++requests)) });`;

/** The hostile fixture: its top level never ends. */
const SPINNING_TOP_LEVEL = readFileSync('test/fixtures/realm-late/spinning-top-level/index.ts', 'utf8');

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const dispose of cleanup.splice(0)) dispose();
});

function request(): WireEnvelope {
  const url = 'https://late-realm.test/';
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

interface SlowPool {
  /** While true, a realm asked for is "being built" until release(); else it is handed over at once. */
  holdBack: boolean;
  /** Hands the realm held back to the start waiting for it. */
  release(): void;
  /** How many times the isolate asked for a realm. */
  takes: number;
  /** The realms handed over, in order. */
  realms: PreparedRealm[];
}

/**
 * An integration on an offenders' worker whose realms come from a pool the test controls. Its
 * realms are made before any dispatch (so a busy machine's slow builds never race a deadline here).
 */
async function offenderIsolate(
  runtime: RuntimeSource,
  source: string,
  lateLines: string[] = [],
): Promise<{ isolate: IntegrationIsolate; pool: SlowPool }> {
  const made: PreparedRealm[] = [];
  for (let i = 0; i < 2; i++) {
    const realm = await prepareRealm(runtime, LIMITS.memoryLimitMb, { warm: true });
    cleanup.push(() => realm.isolate.isDisposed || realm.isolate.dispose());
    made.push(realm);
  }
  const pool: SlowPool = { holdBack: true, release: () => undefined, takes: 0, realms: [] };
  const hand = (): PreparedRealm => {
    const realm = made.shift()!;
    pool.realms.push(realm);
    return realm;
  };
  const isolate = new IntegrationIsolate(
    'late-realm',
    await bundleIntegration(source),
    runtime,
    LIMITS,
    {
      fetch: async () => ({ ok: false, code: 'TypeError', message: 'offline' }),
      lateLog: (_eventIds, _level, text) => lateLines.push(text),
      takeRealm: () => {
        pool.takes++;
        if (!pool.holdBack) return hand();
        return new Promise<PreparedRealm>((resolve) => (pool.release = () => resolve(hand())));
      },
    },
    { deadlineFrom: 'arrival' },
  );
  cleanup.push(() => isolate.dispose('test over'));
  return { isolate, pool };
}

/**
 * The counter integration after one dispatch gave up at its deadline while its realm was held back,
 * and that realm was then handed over: built, claimed, and parked for the next dispatch.
 */
async function parkedAfterALateDeadline(): Promise<{
  isolate: IntegrationIsolate;
  pool: SlowPool;
  lateLines: string[];
}> {
  const lateLines: string[] = [];
  const { isolate, pool } = await offenderIsolate(
    { code: await buildRuntimeScript(), modules: await runtimeModules() },
    COUNTER,
    lateLines,
  );
  await expect(isolate.dispatch(request())).rejects.toMatchObject({ beforeGuest: true });
  pool.release();
  await waitFor(() => isolate.isParked);
  return { isolate, pool, lateLines };
}

describe("a deadline that passes while an offenders' worker still builds the realm", () => {
  it('is answered at the deadline with a timeout that is not ' +
    "the integration's, without waiting for the realm", async () => {
    const runtime = { code: await buildRuntimeScript(), modules: await runtimeModules() };
    const { isolate, pool } = await offenderIsolate(runtime, COUNTER);
    const sentAt = performance.now();
    const error = await isolate.dispatch(request()).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    // libuv's timers count whole milliseconds.
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(DEADLINE_MS - 2);
    expect(error).toBeInstanceOf(DispatchError);
    expect(error).toMatchObject({ failure: 'timeout', beforeGuest: true, executedMs: 0 });
    expect((error as Error).message).toContain('still being prepared by the host (none of its code ran)');
    // The realm was never handed over: the answer came from the deadline, not from the build.
    expect(pool.realms).toEqual([]);
    expect(isolate.isLive).toBe(false);
  }, 60_000);

  it('keeps the realm built afterwards for the next dispatch, running no guest code until then', async () => {
    const { isolate, pool, lateLines } = await parkedAfterALateDeadline();
    // Built, claimed by this integration, alive, and idle (the budget may evict it); no top level ran.
    expect(pool.realms).toHaveLength(1);
    expect(pool.realms[0].claimed).toBe(true);
    expect(pool.realms[0].isolate.isDisposed).toBe(false);
    expect(isolate.isIdle).toBe(true);
    expect(lateLines).not.toContain('top level ran');
    const { response, logs } = await isolate.dispatch(request());
    // Its top level ran once, in that realm, inside this dispatch (its line is this event's).
    expect(new TextDecoder().decode(response.body)).toBe('1/1');
    expect(logs.map((line) => line.text)).toContain('top level ran');
    expect(pool.takes).toBe(1);
    expect(isolate.isLive).toBe(true);
  }, 60_000);

  it('frees a parked realm that is disposed (evicted, moved, replaced) and never runs guest code in it', async () => {
    const { isolate, pool, lateLines } = await parkedAfterALateDeadline();
    isolate.dispose('evicted (least recently used)');
    await waitFor(() => pool.realms[0].isolate.isDisposed);
    expect(isolate.isParked).toBe(false);
    expect(isolate.isStarting).toBe(false);
    expect(lateLines).not.toContain('top level ran');
    // The next dispatch asks for a realm of its own.
    pool.holdBack = false;
    const { response } = await isolate.dispatch(request());
    expect(new TextDecoder().decode(response.body)).toBe('1/1');
    expect(pool.takes).toBe(2);
    expect(pool.realms[1].isolate.isDisposed).toBe(false);
  }, 60_000);

  it("counts a deadline that passes in the integration's own top " +
    'level as its timeout, and disposes the isolate', async () => {
    const runtime = { code: await buildRuntimeScript(), modules: await runtimeModules() };
    const { isolate, pool } = await offenderIsolate(runtime, SPINNING_TOP_LEVEL);
    pool.holdBack = false;
    const error = await isolate.dispatch(request()).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({
      failure: 'timeout',
      beforeGuest: false,
      message: `the integration did not answer within ${DEADLINE_MS} ms`,
    });
    expect(pool.realms).toHaveLength(1);
    // Thrown away once its top level is stopped (isolated-vm's own timeout of the top level), never installed.
    await waitFor(() => pool.realms[0].isolate.isDisposed);
    expect(isolate.isParked).toBe(false);
    expect(isolate.isLive).toBe(false);
  }, 60_000);
});
