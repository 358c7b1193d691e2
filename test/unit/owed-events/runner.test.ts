// The owed-event runner on a real SQLite store with a scripted dispatch and a hand-moved clock: what
// delivers an event, what retries it (growing delays, bounded, then failed for good), that a
// refused event lets the installation's next one go and never before, and that every attempt keeps
// the event's id.
import { afterEach, describe, expect, it } from 'vitest';
import { HostError } from '../../../host/common/errors.ts';
import { currentRequestId, withRequestId } from '../../../host/common/request-context.ts';
import { createMemoryLogger } from '../../../host/common/logger.ts';
import type { DispatchOutcome } from '../../../host/dispatch/event-dispatcher.ts';
import type { Installation } from '../../../host/installations/model.ts';
import type { NewOwedEvent, OwedEventRecord } from '../../../host/owed-events/model.ts';
import { createOwedEventRunner, type OwedEventRunner } from '../../../host/owed-events/runner.ts';
import { openSqliteStores } from '../../../host/store/sqlite/open.ts';
import type { HostStores } from '../../../host/store/types.ts';
import { waitFor } from '../../helpers/host.ts';

const installation: Installation = {
  id: 'inst_a',
  integration: 'hello',
  organization: 'acme',
  target: 'organization',
  status: 'active',
  configuration: {},
  externalIds: [],
  spaceSelection: 'all',
  createdAt: '2026-01-01T00:00:00Z',
};
const owed = (id: string): NewOwedEvent => ({
  id,
  installationId: 'inst_a',
  integration: 'hello',
  event: { type: 'installation_setup', status: 'active' },
  createdAt: 0,
});
const answer = (status: number, verdict?: DispatchOutcome['verdict']): DispatchOutcome => ({
  response: { status, headers: [], body: new Uint8Array() },
  ...(verdict !== undefined ? { verdict } : {}),
  durationMs: 1,
  logs: [],
});

type Step = DispatchOutcome | Error;

let stores: HostStores | undefined;
let runner: OwedEventRunner | undefined;
afterEach(async () => {
  await runner?.stop();
  await stores?.close();
});

async function setUp(events: NewOwedEvent[], script: Step[], options: { exists?: boolean } = {}) {
  stores = openSqliteStores(':memory:');
  await stores.installations.insertInstallation(installation, 'hash_a', events);
  let clock = 1_000;
  const calls: { eventId: string; at: number }[] = [];
  const requests: (string | undefined)[] = [];
  const log = createMemoryLogger();
  const results: string[] = [];
  runner = createOwedEventRunner({
    store: stores.owedEvents,
    limits: { maxAttempts: 3, retryBaseMs: 1_000, maxRetryDelayMs: 3_000 },
    getInstallation: async (id) => (options.exists === false ? undefined : stores!.installations.getInstallation(id)),
    async dispatch(_installation, event) {
      calls.push({ eventId: event.eventId, at: clock });
      requests.push(currentRequestId());
      const step = script.shift();
      if (step === undefined) throw new Error('no more scripted answers');
      if (step instanceof Error) throw step;
      return step;
    },
    now: () => clock,
    log,
    onAttempt: (result) => results.push(result),
    leaseMs: 60_000,
    // Long: only the test's pokes move the runner, at the clock it sets.
    pollMs: 3_600_000,
  });
  // Started as a request would wake it: that request's id must not rub off on the events.
  await withRequestId('req_waker', () => runner!.start());
  const list = () => stores!.owedEvents.list('inst_a', 10);
  const settled = (id: string, check: (event: OwedEventRecord) => boolean) =>
    waitFor(async () => (await list()).some((event) => event.id === id && check(event)));
  const advanceTo = (at: number) => {
    clock = at;
    runner!.poke();
  };
  return { calls, requests, log, results, list, settled, advanceTo };
}

describe('owed-event runner', () => {
  it('dispatches each event under the request that owed it, or under none', async () => {
    const { requests, settled } = await setUp(
      [{ ...owed('evt_1'), requestId: 'req_owner' }, owed('evt_2')],
      [answer(200), answer(200)],
    );
    await settled('evt_2', (event) => event.status === 'delivered');
    expect(requests).toEqual(['req_owner', undefined]);
  });

  it(
    'retries a 5xx answer and a failed dispatch after growing, ' + 'bounded delays, then fails the event for good',
    async () => {
      const { calls, log, results, list, settled, advanceTo } = await setUp(
        [owed('evt_1')],
        [answer(500), new HostError('ERR_SANDBOX_TIMEOUT', 'ran past its deadline'), answer(503)],
      );
      await settled('evt_1', (event) => event.attempts === 1 && event.status === 'pending');
      expect((await list())[0]).toMatchObject({ runAt: 2_000, lastStatus: 500, lastError: 'it answered 500' });
      advanceTo(2_000);
      await settled('evt_1', (event) => event.attempts === 2 && event.status === 'pending');
      // 1 s × 6, capped at 3 s.
      expect((await list())[0]).toMatchObject({
        runAt: 5_000,
        lastStatus: 504,
        lastError: 'ERR_SANDBOX_TIMEOUT: ran past its deadline',
      });
      advanceTo(5_000);
      await settled('evt_1', (event) => event.status === 'failed');
      expect((await list())[0]).toMatchObject({ attempts: 3, lastStatus: 503 });
      expect(calls).toEqual([
        { eventId: 'evt_1', at: 1_000 },
        { eventId: 'evt_1', at: 2_000 },
        { eventId: 'evt_1', at: 5_000 },
      ]);
      expect(results).toEqual(['retry', 'retry', 'failed']);
      expect(log.lines.filter((line) => line.startsWith('warn '))).toEqual([
        expect.stringContaining(
          'installation_setup evt_1 for inst_a (attempt 1/3) failed: it answered 500; retrying at ' +
            '1970-01-01T00:00:02.000Z',
        ),
        expect.stringContaining(
          '(attempt 2/3) failed: ERR_SANDBOX_TIMEOUT: ran past its deadline; retrying at 1970-01-01T00:00:05.000Z',
        ),
        expect.stringContaining('(attempt 3/3) failed for good: it answered 503'),
      ]);
    },
  );

  it(
    'delivers on a 2xx answer and when the integration has no handler; a 4xx fails at once and lets the next event ' +
      'go, in order',
    async () => {
      const { calls, results, list, settled } = await setUp(
        [owed('evt_1'), owed('evt_2'), owed('evt_3')],
        [answer(400), answer(406, 'no-handler'), answer(204)],
      );
      await settled('evt_3', (event) => event.status === 'delivered');
      expect(calls.map((call) => call.eventId)).toEqual(['evt_1', 'evt_2', 'evt_3']);
      await waitFor(() => results.length === 3);
      expect(results).toEqual(['failed', 'delivered', 'delivered']);
      expect((await list()).map((event) => [event.id, event.status, event.attempts, event.lastStatus])).toEqual([
        ['evt_3', 'delivered', 1, 204],
        ['evt_2', 'delivered', 1, 406],
        ['evt_1', 'failed', 1, 400],
      ]);
    },
  );

  it("holds an installation's next event while the one before waits to retry", async () => {
    const { calls, settled, advanceTo } = await setUp(
      [owed('evt_1'), owed('evt_2')],
      [answer(500), answer(200), answer(200)],
    );
    await settled('evt_1', (event) => event.status === 'pending' && event.attempts === 1);
    advanceTo(1_500);
    await settled('evt_2', (event) => event.status === 'pending' && event.attempts === 0);
    advanceTo(2_000);
    await settled('evt_2', (event) => event.status === 'delivered');
    expect(calls.map((call) => call.eventId)).toEqual(['evt_1', 'evt_1', 'evt_2']);
  });

  it('fails, without dispatching, an event whose installation is gone', async () => {
    const { calls, list, settled } = await setUp([owed('evt_1')], [], { exists: false });
    await settled('evt_1', (event) => event.status === 'failed');
    expect((await list())[0]).toMatchObject({ lastStatus: 404, lastError: 'the installation was removed' });
    expect(calls).toEqual([]);
  });
});
