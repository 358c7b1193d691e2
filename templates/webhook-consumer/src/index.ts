// {{title}}: verifies each POST's X-Platform-Signature over the raw body with the installation's
// signing secret (sandbox-api/webhook-receiver, docs/webhooks.md), acknowledges duplicates without
// handling them twice, and logs each new event. 401 for a bad signature, 409 while unconfigured.
import { createIntegration } from 'sandbox-api';
import { createDedupe, verifySignature } from 'sandbox-api/webhook-receiver';

// Installations share the isolate: remember event ids per installation.
const seen = createDedupe();

export default createIntegration({
  async fetch(request, context) {
    if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 });
    const secret = context.environment.installation?.configuration?.signing_secret;
    if (typeof secret !== 'string' || secret === '') return Response.json({ error: 'set signing_secret in the configuration first' }, { status: 409 });
    const raw = new Uint8Array(await request.arrayBuffer());
    const verdict = await verifySignature(raw, request.headers.get('x-platform-signature'), secret);
    if (!verdict.ok) return Response.json({ error: `invalid signature: ${verdict.reason}` }, { status: 401 });
    const event = JSON.parse(new TextDecoder().decode(raw)) as { eventId?: string; type?: string };
    const key = `${context.environment.installation?.id}:${String(event.eventId)}`;
    if (seen.seen(key)) return Response.json({ received: true, duplicate: true });
    console.log(`received ${String(event.type)} ${String(event.eventId)}`);
    return Response.json({ received: true });
  },
});
