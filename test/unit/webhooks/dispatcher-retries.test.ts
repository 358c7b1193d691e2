// The dispatcher's retry table with fake timers and a fake one-attempt `deliver`: exact attempt
// counts per status class, exact delays for a fixed random source, bounds for a real one.
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';
import { type Outbox } from '../../../host/webhooks/outbox.ts';
import { createWebhookDispatcher, type WebhookDispatcher } from '../../../host/webhooks/webhook-dispatcher.ts';
import type { AttemptRequest, AttemptResult } from '../../../host/webhooks/deliver.ts';

const START = Date.parse('2026-01-01T00:00:00Z');
type Scripted = { status: number } | { error: 'timeout' | 'refused' | 'reset' | 'dns' };

let outbox: Outbox;
let dispatcher: WebhookDispatcher;
let calls: { at: number; request: AttemptRequest }[];

async function startDispatcher(script: (call: number) => Scripted, random: () => number = () => 0.5): Promise<void> {
  dispatcher = createWebhookDispatcher({
    outbox,
    policyOptions: { allow: [] },
    signingSecretsFor: async (ids) => new Map(ids.map((id) => [id, ['secret']])),
    now: () => Date.now(),
    random,
    setTimer: (callback, delayMs) => setTimeout(callback, delayMs),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    deliver: async (request): Promise<AttemptResult> => {
      calls.push({ at: Date.now(), request });
      const outcome = script(calls.length);
      return 'status' in outcome
        ? { ...outcome, durationMs: 3 }
        : { ...outcome, message: outcome.error, durationMs: 3 };
    },
  });
  await dispatcher.start();
}

const enqueueOne = async () =>
  (
    await dispatcher.enqueue([
      {
        installationId: 'inst_1',
        eventId: 'evt_1',
        eventType: 'space_content_updated',
        url: 'https://hooks.example/in',
        body: '{}',
      },
    ])
  )[0];

beforeEach(() => {
  vi.useFakeTimers({ now: START });
  outbox = createOutbox(openDatabase(':memory:'));
  calls = [];
});
afterEach(async () => {
  const stopping = dispatcher.stop();
  await vi.advanceTimersByTimeAsync(60_000);
  await stopping;
  vi.useRealTimers();
});

describe('createWebhookDispatcher retry table', () => {
  it.each([400, 401, 404, 410, 301])('fails HTTP %i after exactly one attempt', async (status) => {
    await startDispatcher(() => ({ status }));
    const { id } = await enqueueOne();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1);
    expect(await outbox.get(id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
    expect((await outbox.get(id))?.attemptLog).toEqual([
      {
        attempt: 1,
        startedAt: START,
        durationMs: 3,
        statusCode: status,
        errorKind: null,
        errorMessage: null,
        nextAttemptAt: null,
      },
    ]);
  });

  it.each<Scripted>([{ status: 429 }, { status: 500 }, { status: 503 }, { error: 'timeout' }, { error: 'refused' }])(
    'retries %j three times after 1.05 s, 2.1 s and 4.2 s (random = 0.5), then fails',
    async (outcome) => {
      await startDispatcher(() => outcome);
      const { id } = await enqueueOne();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(calls.map((call) => call.at - START)).toEqual([0, 1_050, 3_150, 7_350]);
      const record = await outbox.get(id);
      expect(record).toMatchObject({ status: 'failed', attempts: 4 });
      expect(record?.attemptLog.map((a) => (a.nextAttemptAt === null ? null : a.nextAttemptAt - START))).toEqual([
        1_050,
        3_150,
        7_350,
        null,
      ]);
      const key = 'status' in outcome ? 'statusCode' : 'errorKind';
      expect(record?.attemptLog.map((a) => a[key])).toEqual(
        Array(4).fill('status' in outcome ? outcome.status : outcome.error),
      );
    },
  );

  it('keeps every real jittered delay within [base, 1.1 × base]', async () => {
    for (let run = 0; run < 20; run++) {
      calls = [];
      await startDispatcher(() => ({ status: 500 }), Math.random);
      const { id } = await enqueueOne();
      await vi.advanceTimersByTimeAsync(60_000);
      const gaps = calls.slice(1).map((call, i) => call.at - calls[i].at);
      expect(gaps).toHaveLength(3);
      [1_000, 2_000, 4_000].forEach((base, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(base);
        expect(gaps[i]).toBeLessThanOrEqual(base * 1.1);
      });
      expect((await outbox.get(id))?.status).toBe('failed');
      const stopping = dispatcher.stop();
      await vi.advanceTimersByTimeAsync(10);
      await stopping;
    }
  });

  it('does not send the next attempt before its delay has passed', async () => {
    await startDispatcher(
      () => ({ status: 503 }),
      () => 0,
    );
    await enqueueOne();
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
  });

  it('succeeds on the first 2xx after retries and stops retrying', async () => {
    await startDispatcher((call) => (call < 3 ? { error: 'reset' } : { status: 204 }));
    const { id } = await enqueueOne();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(3);
    expect(await outbox.get(id)).toMatchObject({ status: 'succeeded', attempts: 3, nextAttemptAt: null });
  });

  it('signs every attempt with the installation secrets and resends the same body', async () => {
    await startDispatcher(() => ({ status: 500 }));
    await enqueueOne();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.map((call) => call.request)).toEqual(
      Array(4).fill({ url: 'https://hooks.example/in', body: '{}', secrets: ['secret'] }),
    );
  });
});
