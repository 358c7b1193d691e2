// The dispatcher's hot path: a burst of results (two or more, at least half of what is in flight)
// is written in one transaction right after the I/O that finished it (setImmediate), not a timer
// tick later, while a lone result waits for the tick; enqueue wakes the pump without reading the
// outbox (deliveries enqueued within one timer tick are claimed together), and an older read of
// the next due time can never cancel that wake.
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';
import { type NewDelivery, type Outbox } from '../../../host/webhooks/outbox.ts';
import {
  createWebhookDispatcher,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from '../../../host/webhooks/webhook-dispatcher.ts';
import type { AttemptRequest, AttemptResult } from '../../../host/webhooks/deliver.ts';

let outbox: Outbox;
let dispatcher: WebhookDispatcher | undefined;
let sent: AttemptRequest[];

const to = (url: string, eventId = 'evt'): NewDelivery => ({
  installationId: 'inst_1',
  eventId,
  eventType: 'space_content_updated',
  url,
  body: `{"eventId":"${eventId}"}`,
});
const ok = async (request: AttemptRequest): Promise<AttemptResult> => {
  sent.push(request);
  return { status: 200, durationMs: 1 };
};

function makeDispatcher(overrides: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
  dispatcher = createWebhookDispatcher({
    outbox,
    policyOptions: { allow: [] },
    signingSecretsFor: async (ids) => new Map(ids.map((id) => [id, ['s']])),
    deliver: ok,
    ...overrides,
  });
  return dispatcher;
}

/** Lets real setImmediate callbacks (and the promises they settle) run, a bounded number of turns. */
async function turns(count: number, until: () => boolean = () => false): Promise<void> {
  for (let i = 0; i < count && !until(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface ManualTimers {
  options: Partial<WebhookDispatcherOptions>;
  runDue(maxDelayMs: number): void;
}

let manual: ManualTimers | undefined;

/** Timers the test runs by hand: `runDue(ms)` runs (once) each pending one set with at most that delay. */
function manualTimers(): ManualTimers {
  const pending = new Set<{ callback: () => void; delayMs: number }>();
  const options: Partial<WebhookDispatcherOptions> = {
    setTimer: (callback, delayMs) => {
      const timer = { callback, delayMs };
      pending.add(timer);
      return timer;
    },
    clearTimer: (handle) => void pending.delete(handle as { callback: () => void; delayMs: number }),
  };
  return (manual = {
    options,
    runDue(maxDelayMs: number) {
      for (const timer of [...pending]) {
        if (timer.delayMs > maxDelayMs) continue;
        pending.delete(timer);
        timer.callback();
      }
    },
  });
}

beforeEach(() => {
  outbox = createOutbox(openDatabase(':memory:'));
  sent = [];
  dispatcher = undefined;
});
afterEach(async () => {
  let stopped = false;
  const stopping = dispatcher?.stop().then(() => (stopped = true));
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(60_000);
  // Manual timers: run stop()'s bound for attempts that never finish.
  for (let i = 0; manual !== undefined && i < 50 && !stopped; i++) {
    manual.runDue(Infinity);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await stopping;
  manual = undefined;
  vi.useRealTimers();
});

describe('createWebhookDispatcher write path', () => {
  it('records a burst of results and sends the next deliveries without waiting for a timer', async () => {
    const timers = manualTimers();
    const done: string[] = [];
    await makeDispatcher({
      ...timers.options,
      perEndpointConcurrency: 2,
      onAttempt: ({ delivery, status }) => void done.push(`${delivery.eventId} ${status}`),
    }).start();
    await dispatcher!.enqueue(['evt_1', 'evt_2', 'evt_3', 'evt_4'].map((eventId) => to('https://a.example/', eventId)));
    timers.runDue(0);
    await turns(50, () => done.length === 4);
    expect(done).toEqual(['evt_1 succeeded', 'evt_2 succeeded', 'evt_3 succeeded', 'evt_4 succeeded']);
  });

  it('writes a lone result on the timer tick, even with nothing else in flight', async () => {
    const timers = manualTimers();
    const done: string[] = [];
    await makeDispatcher({ ...timers.options, onAttempt: ({ delivery }) => void done.push(delivery.eventId) }).start();
    await dispatcher!.enqueue([to('https://a.example/', 'evt_1')]);
    timers.runDue(0);
    await turns(50, () => sent.length === 1);
    await turns(10);
    expect(done).toEqual([]);
    timers.runDue(1);
    await turns(10, () => done.length === 1);
    expect(done).toEqual(['evt_1']);
  });

  it('claims deliveries enqueued one at a time within a timer tick together', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
    const claimDue = vi.spyOn(outbox, 'claimDue');
    await makeDispatcher().start();
    for (let i = 0; i < 5; i++) {
      await dispatcher!.enqueue([to('https://a.example/', `evt_${i}`)]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(claimDue).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(claimDue.mock.results.length).toBeGreaterThan(0);
    expect((await claimDue.mock.results[0].value).map((delivery: { eventId: string }) => delivery.eventId)).toEqual([
      'evt_0',
      'evt_1',
      'evt_2',
      'evt_3',
      'evt_4',
    ]);
  });

  it('signs with the secrets a signed claim returned, without reading them apart', async () => {
    const timers = manualTimers();
    const signedOutbox: Outbox = {
      ...outbox,
      claimDueSigned: async (nowMs, request) => {
        const claimed = await outbox.claimDue(nowMs, request);
        return { claimed, secrets: new Map([['inst_1', ['from-the-claim', 'previous']]]) };
      },
    };
    const signingSecretsFor = vi.fn(async () => new Map<string, string[]>());
    await makeDispatcher({ ...timers.options, outbox: signedOutbox, signingSecretsFor }).start();
    await dispatcher!.enqueue([
      to('https://a.example/', 'evt_1'),
      { ...to('https://b.example/', 'evt_2'), installationId: 'inst_2' },
    ]);
    timers.runDue(0);
    await turns(50, () => sent.length === 2);
    expect(sent.map((request) => [request.url, request.secrets])).toEqual([
      ['https://a.example/', ['from-the-claim', 'previous']],
      // An installation the claim found no secret for gets none, as from the read apart.
      ['https://b.example/', []],
    ]);
    expect(signingSecretsFor).not.toHaveBeenCalled();
  });

  it('writes the results of attempts that finish together in one transaction', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const recordAttempts = vi.spyOn(outbox, 'recordAttempts');
    await makeDispatcher().start();
    await dispatcher!.enqueue(Array.from({ length: 8 }, (_, i) => to('https://a.example/', `evt_${i}`)));
    await vi.advanceTimersByTimeAsync(10);
    expect(sent).toHaveLength(8);
    expect(recordAttempts.mock.calls.map(([entries]) => entries.length)).toEqual([8]);
  });

  it('writes once half of the attempts in flight have finished, while the others still run', async () => {
    const timers = manualTimers();
    const hanging: AttemptRequest[] = [];
    const recorded: string[] = [];
    await makeDispatcher({
      ...timers.options,
      deliver: (request) =>
        JSON.parse(request.body).eventId.startsWith('evt_slow')
          ? (hanging.push(request), new Promise<AttemptResult>(() => {}))
          : ok(request),
      onAttempt: ({ delivery }) => void recorded.push(delivery.eventId),
      stopTimeoutMs: 10,
    }).start();
    await dispatcher!.enqueue([
      to('https://a.example/', 'evt_fast_1'),
      to('https://a.example/', 'evt_slow_1'),
      to('https://a.example/', 'evt_fast_2'),
      to('https://a.example/', 'evt_slow_2'),
    ]);
    timers.runDue(0);
    await turns(50, () => recorded.length === 2);
    expect(hanging).toHaveLength(2);
    expect(recorded).toEqual(['evt_fast_1', 'evt_fast_2']);
  });

  it('keeps a lone result among attempts still running for the next timer tick, then writes it', async () => {
    const timers = manualTimers();
    const recorded: string[] = [];
    await makeDispatcher({
      ...timers.options,
      deliver: (request) =>
        JSON.parse(request.body).eventId.startsWith('evt_slow') ? new Promise<AttemptResult>(() => {}) : ok(request),
      onAttempt: ({ delivery }) => void recorded.push(delivery.eventId),
      stopTimeoutMs: 10,
    }).start();
    await dispatcher!.enqueue([
      to('https://a.example/', 'evt_fast'),
      to('https://a.example/', 'evt_slow_1'),
      to('https://a.example/', 'evt_slow_2'),
    ]);
    timers.runDue(0);
    await turns(50, () => sent.length === 1);
    await turns(10);
    expect(recorded).toEqual([]);
    timers.runDue(1);
    await turns(10, () => recorded.length === 1);
    expect(recorded).toEqual(['evt_fast']);
  });

  it('wakes the pump on enqueue without reading the next due time from the outbox', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    await makeDispatcher().start();
    await vi.advanceTimersByTimeAsync(10);
    const nextDueAt = vi.spyOn(outbox, 'nextDueAt');
    await dispatcher!.enqueue([to('https://a.example/')]);
    expect(nextDueAt).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10);
    expect(sent).toHaveLength(1);
  });

  it('is not put back to sleep by a read of the next due time that began before the enqueue', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    let answerStaleRead: (dueAt: number | null) => void = () => {};
    const realNextDueAt = outbox.nextDueAt.bind(outbox);
    let reads = 0;
    // The first read (at start, with nothing queued) answers only after the enqueue: "nothing due".
    outbox.nextDueAt = (busy) =>
      ++reads === 1 ? new Promise<number | null>((resolve) => (answerStaleRead = resolve)) : realNextDueAt(busy);
    await makeDispatcher().start();
    await dispatcher!.enqueue([to('https://a.example/')]);
    answerStaleRead(null);
    await vi.advanceTimersByTimeAsync(10);
    expect(sent).toHaveLength(1);
  });
});
