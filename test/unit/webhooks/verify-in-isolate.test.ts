// The receiver helper works inside an integration's isolate (Web Crypto subset, no Node):
// an integration verifies our signature on its public endpoint and dedupes on eventId.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness, envelope, json } from '../sandbox-api/harness.ts';
import { signatureHeader, signPayload } from '../../../host/webhooks/sign.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

const RECEIVER = `
import { createIntegration } from 'sandbox-api';
import { createDedupe, verifySignature } from 'sandbox-api/webhook-receiver';
const dedupe = createDedupe();
export default createIntegration({
  async fetch(request) {
    const raw = new Uint8Array(await request.arrayBuffer());
    const verdict = await verifySignature(raw, request.headers.get('x-platform-signature'), 'isolate-secret');
    if (!verdict.ok) return Response.json({ error: verdict.reason }, { status: 401 });
    const event = JSON.parse(new TextDecoder().decode(raw));
    return Response.json({ received: true, duplicate: dedupe.seen(event.eventId) });
  },
});`;

const BODY = JSON.stringify({
  eventId: 'evt_iso',
  type: 'space_content_updated',
  installationId: 'inst_1',
  spaceId: 's',
  revisionId: 'r',
});
const post = (signature: string) =>
  envelope(
    {
      type: 'fetch',
      request: {
        method: 'POST',
        url: 'https://host.example/hook',
        headers: [
          ['x-platform-signature', signature],
          ['content-type', 'application/json'],
        ],
      },
    },
    new TextEncoder().encode(BODY),
  );
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('verifySignature inside an isolate', () => {
  it('accepts our signature and dedupes the second delivery', async () => {
    await harness.loadSource(RECEIVER);
    const first = await harness.dispatch(post(signPayload('isolate-secret', BODY, nowSeconds())));
    expect(first.status).toBe(200);
    expect(json(first)).toEqual({ received: true, duplicate: false });
    const second = await harness.dispatch(post(signatureHeader(['rotated', 'isolate-secret'], BODY, nowSeconds())));
    expect(json(second)).toEqual({ received: true, duplicate: true });
  });

  it('rejects a wrong secret and a stale timestamp with 401', async () => {
    await harness.loadSource(RECEIVER);
    const wrong = await harness.dispatch(post(signPayload('other', BODY, nowSeconds())));
    expect(wrong.status).toBe(401);
    expect(json(wrong)).toEqual({ error: 'signature_mismatch' });
    const stale = await harness.dispatch(post(signPayload('isolate-secret', BODY, nowSeconds() - 600)));
    expect(json(stale)).toEqual({ error: 'timestamp_out_of_tolerance' });
  });
});
