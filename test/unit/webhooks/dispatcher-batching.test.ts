// The dispatcher's hot path: results of attempts that finish together are written in one
// transaction; a flush or a delivery due now runs right after the I/O that caused it (setImmediate),
// not a timer tick later; enqueue wakes the pump without reading the outbox, and an older read of
// the next due time can never cancel that wake.
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';
import { type NewDelivery, type Outbox } from '../../../host/webhooks/outbox.ts';
import { createWebhookDispatcher, type WebhookDispatcher, type WebhookDispatcherOptions } from '../../../host/webhooks/dispatcher.ts';
import type { AttemptRequest, AttemptResult } from '../../../host/webhooks/deliver.ts';

let outbox: Outbox;
let dispatcher: WebhookDispatcher | undefined;
let sent: AttemptRequest[];

const to = (url: string, eventId = 'evt'): NewDelivery => ({ installationId: 'inst_1', eventId, eventType: 'space_content_updated', url, body: `{"eventId":"${eventId}"}` });
const ok = async (request: AttemptRequest): Promise<AttemptResult> => {
  sent.push(request);
  return { status: 200, durationMs: 1 };
};

function makeDispatcher(overrides: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
  dispatcher = createWebhookDispatcher({ outbox, policyOptions: { allow: [] }, secretsFor: async () => ['s'], deliver: ok, ...overrides });
  return dispatcher;
}

/** Lets real setImmediate callbacks (and the promises they settle) run, a bounded number of turns. */
async function turns(count: number, until: () => boolean = () => false): Promise<void> {
  for (let i = 0; i < count && !until(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

beforeEach(() => {
  outbox = createOutbox(openDatabase(':memory:'));
  sent = [];
  dispatcher = undefined;
});
afterEach(async () => {
  const stopping = dispatcher?.stop();
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(60_000);
  await stopping;
  vi.useRealTimers();
});

describe('createWebhookDispatcher write path', () => {
  it('sends, records and sends the next without waiting for a timer tick', async () => {
    // Only timeouts are fake and never advanced: whatever waited for one would never happen.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
    const done: string[] = [];
    await makeDispatcher({ perEndpointConcurrency: 1, onAttempt: ({ delivery, status }) => void done.push(`${delivery.eventId} ${status}`) }).start();
    await dispatcher!.enqueue([to('https://a.example/', 'evt_1'), to('https://a.example/', 'evt_2')]);
    await turns(50, () => done.length === 2);
    expect(done).toEqual(['evt_1 succeeded', 'evt_2 succeeded']);
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
    const hanging: AttemptRequest[] = [];
    const recorded: string[] = [];
    await makeDispatcher({
      deliver: (request) => (JSON.parse(request.body).eventId.startsWith('evt_slow') ? (hanging.push(request), new Promise<AttemptResult>(() => {})) : ok(request)),
      onAttempt: ({ delivery }) => void recorded.push(delivery.eventId),
      stopTimeoutMs: 10,
    }).start();
    await dispatcher!.enqueue([to('https://a.example/', 'evt_fast_1'), to('https://a.example/', 'evt_slow_1'), to('https://a.example/', 'evt_fast_2'), to('https://a.example/', 'evt_slow_2')]);
    await turns(50, () => recorded.length === 2);
    expect(hanging).toHaveLength(2);
    expect(recorded).toEqual(['evt_fast_1', 'evt_fast_2']);
  });

  it('keeps a lone result among attempts still running for the next timer tick, then writes it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
    const recorded: string[] = [];
    await makeDispatcher({
      deliver: (request) => (JSON.parse(request.body).eventId.startsWith('evt_slow') ? new Promise<AttemptResult>(() => {}) : ok(request)),
      onAttempt: ({ delivery }) => void recorded.push(delivery.eventId),
      stopTimeoutMs: 10,
    }).start();
    await dispatcher!.enqueue([to('https://a.example/', 'evt_fast'), to('https://a.example/', 'evt_slow_1'), to('https://a.example/', 'evt_slow_2')]);
    await turns(50, () => sent.length === 1);
    await turns(10);
    expect(recorded).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
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
    outbox.nextDueAt = (busy) => (++reads === 1 ? new Promise<number | null>((resolve) => (answerStaleRead = resolve)) : realNextDueAt(busy));
    await makeDispatcher().start();
    await dispatcher!.enqueue([to('https://a.example/')]);
    answerStaleRead(null);
    await vi.advanceTimersByTimeAsync(10);
    expect(sent).toHaveLength(1);
  });
});

describe('createWebhookDispatcher on a row it cannot claim', () => {
  it('looks again a timer tick later, not in a loop, while a due row stays unclaimable', async () => {
    // As on a shared store while another host holds the row in a claim not yet committed.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
    let claims = 0;
    const held: Outbox = { ...outbox, nextDueAt: async () => Date.now(), claimDue: async () => (claims++, []) };
    dispatcher = createWebhookDispatcher({ outbox: held, policyOptions: { allow: [] }, secretsFor: async () => ['s'], deliver: ok });
    await dispatcher.start();
    await turns(200);
    expect(claims).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await turns(20);
    expect(claims).toBe(2);
  });
});
