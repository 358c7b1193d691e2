// The sample Koa receiver in fixtures/receivers: 200 for a valid delivery, 401 for a bad
// signature, duplicates acknowledged but processed once, 500 (and reprocessing) when onEvent throws.
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type RunningReceiver } from '../../../fixtures/receivers/receiver.ts';
import { signPayload } from '../../../host/webhooks/sign.ts';

let receiver: RunningReceiver | undefined;
afterEach(async () => receiver?.close());

const body = (eventId: string) =>
  JSON.stringify({ eventId, type: 'space_content_updated', installationId: 'i', spaceId: 's', revisionId: 'r' });
const post = (url: string, raw: string, signature?: string) =>
  fetch(url, {
    method: 'POST',
    body: raw,
    headers: { 'content-type': 'application/json', ...(signature ? { 'x-platform-signature': signature } : {}) },
  });
const now = () => Math.floor(Date.now() / 1000);

describe('fixture receiver', () => {
  it('answers 200 {"received":true} to a valid delivery and processes it', async () => {
    const events: unknown[] = [];
    receiver = await startReceiver({ secret: 'fx', onEvent: (event) => void events.push(event) });
    const response = await post(receiver.url, body('evt_1'), signPayload('fx', body('evt_1'), now()));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(events).toEqual([JSON.parse(body('evt_1'))]);
  });

  it('answers 401 with an error for a missing or wrong signature', async () => {
    const events: unknown[] = [];
    receiver = await startReceiver({ secret: 'fx', onEvent: (event) => void events.push(event) });
    const missing = await post(receiver.url, body('evt_1'));
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: 'invalid signature: missing_header' });
    const wrong = await post(receiver.url, body('evt_1'), signPayload('other', body('evt_1'), now()));
    expect(wrong.status).toBe(401);
    expect(events).toEqual([]);
  });

  it('acknowledges a duplicate eventId without processing it twice', async () => {
    let processed = 0;
    receiver = await startReceiver({ secret: 'fx', onEvent: () => void processed++ });
    for (let i = 0; i < 3; i++)
      expect((await post(receiver.url, body('evt_dup'), signPayload('fx', body('evt_dup'), now()))).status).toBe(200);
    expect(processed).toBe(1);
  });

  it('answers 500 when processing fails, and processes the retry', async () => {
    let calls = 0;
    receiver = await startReceiver({
      secret: 'fx',
      onEvent: () => {
        if (++calls === 1) throw new Error('db down');
      },
    });
    expect((await post(receiver.url, body('evt_f'), signPayload('fx', body('evt_f'), now()))).status).toBe(500);
    expect((await post(receiver.url, body('evt_f'), signPayload('fx', body('evt_f'), now()))).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('answers 405 to other methods, like the seed example', async () => {
    receiver = await startReceiver({ secret: 'fx' });
    const response = await fetch(receiver.url);
    expect(response.status).toBe(405);
    expect(await response.text()).toBe('Method not allowed');
  });
});
