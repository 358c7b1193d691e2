// The stand-in integration our own warm-ups run through the runtime (the startup snapshot's, and a
// pooled realm's before any integration claims it), and the events it answers. Our code only: no
// integration's code, name or data is ever in it, and nothing it does stays reachable by a guest.

/**
 * What sandbox-api's createIntegration() does with a public request (sandbox-api/index.ts,
 * handleFetch): builds the handler's Request from the envelope with the runtime's Request class
 * (URL record, method, Headers from the forwarded pairs), reads it the way handlers commonly do, and
 * answers with a Response. A warm-up that only built a Response left the Request path to each
 * integration's first request (the first dispatch was twice the second on the bench).
 * An expression whose value is the entry (its namespace's shape is all setEntry needs).
 */
export const WARM_ENTRY = `"use strict"; ({ [Symbol.for('sandbox-api.integration')]: async (envelope, host) => {
  const incoming = envelope.event.request;
  const environment = envelope.environment ?? {};
  const request = new host.Request(incoming.url, { method: String(incoming.method), headers: incoming.headers, body: null });
  void [request.method, request.url, request.headers.get('accept'), environment.installation];
  return new host.Response('ok', { status: 200, headers: { 'content-type': 'text/plain' } });
} })`;

export const WARM_URL = 'https://warm-up.invalid/v1/integrations/warm-up/installations/inst_warm_up';

/** How many events a warm-up dispatches (the first compiles, the next ones settle the inline caches). */
export const WARM_DISPATCHES = 3;

/** A fetch event shaped as the host sends one (fetch-event.ts): the headers a client commonly sends. */
export function warmEventJson(index: number): string {
  return JSON.stringify({
    type: 'fetch',
    installationId: 'inst_warm_up',
    request: {
      method: 'GET',
      url: WARM_URL,
      headers: [['host', 'warm-up.invalid'], ['accept', '*/*'], ['accept-language', '*'], ['user-agent', 'warm-up'], ['accept-encoding', 'gzip, deflate']],
    },
    eventId: `evt_warm_up_${index}`,
  });
}

/**
 * An environment of the shape the host builds (host/dispatch/environment.ts: nested objects and
 * arrays the runtime copies for each dispatch), with made-up values.
 */
export const WARM_ENVIRONMENT_JSON = JSON.stringify({
  apiEndpoint: 'https://warm-up.invalid',
  apiTokens: { integration: 'warm-up', installation: 'warm-up' },
  integration: { object: 'integration', name: 'warm-up', version: 1, title: 'warm-up', scopes: [], categories: [], visibility: 'public', owner: { object: 'organization', id: 'warm-up', urls: { location: WARM_URL } }, urls: { location: WARM_URL, publicEndpoint: WARM_URL } },
  installation: { id: 'inst_warm_up', status: 'active', configuration: {}, externalIds: [], target: { organization: 'warm-up' }, urls: { location: WARM_URL, publicEndpoint: WARM_URL } },
  signingSecrets: { integration: 'warm-up', installation: 'warm-up' },
  secrets: {},
  id: 'inst_warm_up',
  target: 'organization',
  status: 'active',
  configuration: {},
  urls: { publicEndpoint: WARM_URL },
});
