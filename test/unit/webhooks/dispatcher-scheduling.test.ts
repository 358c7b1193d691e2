// The dispatcher's scheduling: enqueue is durable when it resolves, sending is concurrent but
// bounded per endpoint and overall, a slow receiver never holds up others, stop() is bounded.
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
let dispatcher: WebhookDispatcher;
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

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  outbox = createOutbox(openDatabase(':memory:'));
  sent = [];
});
afterEach(async () => {
  const stopping = dispatcher?.stop();
  await vi.advanceTimersByTimeAsync(60_000);
  await stopping;
  vi.useRealTimers();
});

describe('createWebhookDispatcher scheduling', () => {
  it('writes to the outbox before enqueue resolves and sends nothing inside enqueue', async () => {
    await makeDispatcher().start();
    const [record] = await dispatcher.enqueue([to('https://a.example/')]);
    expect((await outbox.get(record.id))?.status).toBe('pending');
    expect(sent).toHaveLength(0);
  });

  it('keeps deliveries enqueued before start and sends them once started', async () => {
    makeDispatcher();
    const [record] = await dispatcher.enqueue([to('https://a.example/')]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sent).toHaveLength(0);
    await dispatcher.start();
    await vi.advanceTimersByTimeAsync(10);
    expect((await outbox.get(record.id))?.status).toBe('succeeded');
  });

  it('keeps sending to other endpoints while one receiver hangs', async () => {
    const hanging: AttemptRequest[] = [];
    await makeDispatcher({
      perEndpointConcurrency: 1,
      deliver: (request) =>
        request.url.startsWith('https://slow.example')
          ? (hanging.push(request), new Promise<AttemptResult>(() => {}))
          : ok(request),
      stopTimeoutMs: 10,
    }).start();
    await dispatcher.enqueue([
      to('https://slow.example/', 'evt_s1'),
      to('https://slow.example/', 'evt_s2'),
      to('https://fast.example/', 'evt_f1'),
      to('https://fast.example/', 'evt_f2'),
    ]);
    await vi.advanceTimersByTimeAsync(10);
    expect(hanging).toHaveLength(1);
    expect(sent.map((r) => JSON.parse(r.body).eventId)).toEqual(['evt_f1', 'evt_f2']);
  });

  it('never has more attempts in flight than the concurrency bound', async () => {
    let inFlight = 0;
    let peak = 0;
    await makeDispatcher({
      concurrency: 3,
      deliver: async (request) => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 50));
        inFlight--;
        return ok(request);
      },
    }).start();
    await dispatcher.enqueue(Array.from({ length: 10 }, (_, i) => to(`https://host${i}.example/`, `evt_${i}`)));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(10);
    expect(peak).toBe(3);
  });

  it('drains a large backlog for one receiver within its bound while another receiver is served', async () => {
    const inFlight = new Map<string, number>();
    const peak = new Map<string, number>();
    await makeDispatcher({
      perEndpointConcurrency: 4,
      deliver: async (request) => {
        const origin = new URL(request.url).origin;
        inFlight.set(origin, (inFlight.get(origin) ?? 0) + 1);
        peak.set(origin, Math.max(peak.get(origin) ?? 0, inFlight.get(origin)!));
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight.set(origin, inFlight.get(origin)! - 1);
        return ok(request);
      },
    }).start();
    await dispatcher.enqueue(Array.from({ length: 300 }, (_, i) => to('https://backlog.example/', `evt_${i}`)));
    await dispatcher.enqueue([to('https://other.example/', 'evt_other')]);
    await vi.advanceTimersByTimeAsync(20);
    expect(sent.some((r) => r.url === 'https://other.example/')).toBe(true);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(sent).toHaveLength(301);
    expect(peak.get('https://backlog.example')).toBe(4);
  });

  it('treats a throwing deliver as a network error and retries', async () => {
    let call = 0;
    await makeDispatcher({
      random: () => 0,
      deliver: async (request) => (++call === 1 ? Promise.reject(new Error('boom')) : ok(request)),
    }).start();
    const [record] = await dispatcher.enqueue([to('https://a.example/')]);
    await vi.advanceTimersByTimeAsync(1_100);
    expect((await outbox.get(record.id))?.attemptLog.map((a) => [a.errorKind, a.statusCode])).toEqual([
      ['network', null],
      [null, 200],
    ]);
  });

  it('resumes deliveries a previous process left in flight', async () => {
    await outbox.enqueue([to('https://a.example/')], Date.now());
    expect(
      await outbox.claimDue(Date.now(), { limit: 1, perEndpoint: 1, room: new Map(), leaseMs: 30_000 }),
    ).toHaveLength(1);
    await makeDispatcher().start();
    await vi.advanceTimersByTimeAsync(10);
    expect(sent).toHaveLength(1);
  });

  it('redelivers a failed delivery as a new one with the same event', async () => {
    await makeDispatcher({
      deliver: async (request) => (sent.push(request), { status: sent.length === 1 ? 410 : 200, durationMs: 1 }),
    }).start();
    const [original] = await dispatcher.enqueue([to('https://a.example/', 'evt_r')]);
    await vi.advanceTimersByTimeAsync(10);
    expect((await outbox.get(original.id))?.status).toBe('failed');
    const copy = await dispatcher.redeliver(original.id);
    await vi.advanceTimersByTimeAsync(10);
    expect(await outbox.get(copy!.id)).toMatchObject({
      status: 'succeeded',
      eventId: 'evt_r',
      redeliveryOf: original.id,
    });
    expect(sent[0].body).toBe(sent[1].body);
  });

  it('stops scheduling on stop() and waits for the attempt in flight', async () => {
    let finish: (result: AttemptResult) => void = () => {};
    await makeDispatcher({ deliver: () => new Promise((resolve) => (finish = resolve)) }).start();
    const [record] = await dispatcher.enqueue([to('https://a.example/')]);
    await vi.advanceTimersByTimeAsync(10);
    const stopped = dispatcher.stop();
    finish({ status: 500, durationMs: 1 });
    await vi.advanceTimersByTimeAsync(10);
    await stopped;
    expect(await outbox.get(record.id)).toMatchObject({ status: 'pending', attempts: 1 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await outbox.get(record.id))?.attempts).toBe(1);
  });

  it('gives up waiting after the stop bound, leaving the row in flight for the next start', async () => {
    await makeDispatcher({ deliver: () => new Promise<AttemptResult>(() => {}), stopTimeoutMs: 500 }).start();
    const [record] = await dispatcher.enqueue([to('https://a.example/')]);
    await vi.advanceTimersByTimeAsync(10);
    const stopped = dispatcher.stop();
    await vi.advanceTimersByTimeAsync(500);
    await stopped;
    expect((await outbox.get(record.id))?.status).toBe('in_flight');
  });
});
