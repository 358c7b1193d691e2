// When the dispatcher announces new deliveries to the other hosts of a shared outbox, and what it does
// when they announce theirs: it announces exactly what its free slots (overall and per receiver, less
// what it queued since its last claim) do not cover, or everything while it is not running; hearing an
// announcement, it claims only when it has room for one of the announced receivers.
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';
import type { NewDelivery, Outbox } from '../../../host/webhooks/outbox.ts';
import type { AttemptRequest, AttemptResult } from '../../../host/webhooks/deliver.ts';
import { createWebhookDispatcher, type WebhookDispatcher } from '../../../host/webhooks/webhook-dispatcher.ts';

let shared: Outbox;
let dispatcher: WebhookDispatcher;
let sent: AttemptRequest[];
let announced: boolean[];
let claims: number;

const to = (url: string): NewDelivery => ({
  installationId: 'inst_1',
  eventId: 'evt',
  eventType: 'space_content_updated',
  url,
  body: '{"eventId":"evt"}',
});

/** Sends hang (slots stay taken) for receivers on slow.example; others answer 200. */
function start(concurrency: number, perEndpointConcurrency: number): WebhookDispatcher {
  const outbox: Outbox = {
    ...shared,
    enqueue(deliveries, nowMs, options) {
      announced.push(options?.announce ?? false);
      return shared.enqueue(deliveries, nowMs, options);
    },
    claimDue(nowMs, request) {
      claims++;
      return shared.claimDue(nowMs, request);
    },
  };
  dispatcher = createWebhookDispatcher({
    outbox,
    policyOptions: { allow: [] },
    signingSecretsFor: async (ids) => new Map(ids.map((id) => [id, ['s']])),
    concurrency,
    perEndpointConcurrency,
    stopTimeoutMs: 10,
    deliver: async (request): Promise<AttemptResult> => {
      sent.push(request);
      if (request.url.startsWith('https://slow.example')) return new Promise<AttemptResult>(() => {});
      return { status: 200, durationMs: 1 };
    },
  });
  return dispatcher;
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  shared = createOutbox(openDatabase(':memory:'));
  sent = [];
  announced = [];
  claims = 0;
});
afterEach(async () => {
  const stopping = dispatcher?.stop();
  await vi.advanceTimersByTimeAsync(60_000);
  await stopping;
  vi.useRealTimers();
});

describe('the dispatcher on a shared outbox', () => {
  it('announces only what its free slots, less those counted since its last claim, do not cover', async () => {
    await start(4, 2).start();
    // Queued in one burst, before any claim: the first two fit slow.example's two slots, the third does not.
    await dispatcher.enqueue([to('https://slow.example/1')]);
    await dispatcher.enqueue([to('https://slow.example/2')]);
    await dispatcher.enqueue([to('https://slow.example/3')]);
    await dispatcher.enqueue([to('https://fast.example/1')]);
    expect(announced).toEqual([false, false, true, false]);
    await vi.advanceTimersByTimeAsync(10);
    expect(dispatcher.activeCount()).toBe(2);
    // slow.example is at its bound; two slots are free overall.
    await dispatcher.enqueue([to('https://slow.example/4')]);
    await dispatcher.enqueue([to('https://other.example/1'), to('https://more.example/1')]);
    await dispatcher.enqueue([to('https://more.example/2')]);
    expect(announced.slice(4)).toEqual([true, false, true]);
  });

  it('announces everything it queues while it is not running', async () => {
    start(4, 2);
    await dispatcher.enqueue([to('https://fast.example/1')]);
    await dispatcher.start();
    await dispatcher.enqueue([to('https://fast.example/2')]);
    await dispatcher.stop();
    await dispatcher.enqueue([to('https://fast.example/3')]);
    expect(announced).toEqual([true, false, true]);
  });

  it('claims what another host announced only when it has room for one of its receivers', async () => {
    await start(4, 1).start();
    await dispatcher.enqueue([to('https://slow.example/mine')]);
    await vi.advanceTimersByTimeAsync(10);
    expect(dispatcher.activeCount()).toBe(1);
    const before = claims;

    // Another host's row for a receiver this host has no room for: no claim, no round trip.
    await shared.enqueue([to('https://slow.example/theirs')], Date.now());
    dispatcher.workAnnounced(['https://slow.example']);
    await vi.advanceTimersByTimeAsync(10);
    expect(claims).toBe(before);

    // One for a receiver it has room for: claimed and sent at once (no poll is configured).
    await shared.enqueue([to('https://fast.example/theirs')], Date.now());
    dispatcher.workAnnounced(['https://fast.example']);
    await vi.advanceTimersByTimeAsync(10);
    expect(sent.map((request) => request.url)).toContain('https://fast.example/theirs');
    expect(sent.map((request) => request.url)).not.toContain('https://slow.example/theirs');
  });
});
