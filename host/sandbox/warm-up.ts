// The stand-in integration our own warm-ups run through the runtime (the startup snapshot's, and a
// pooled realm's before any integration claims it), and the events it answers. Our code only: no
// integration's code, name or data is ever in it, and nothing it does stays reachable by a guest.

/**
 * A bundle's value as the runtime gets one (host/manifest/bundle.ts wrapBundle: a function of the
 * provided modules returning the namespace), whose default export is made with the provided
 * sandbox-api's createIntegration(), as an integration's is: the warm-up then compiles and runs
 * sandbox-api's own dispatch path (handle, handleFetch, the API client, the Request built from the
 * envelope), which every integration's first request used to compile in its own copy. The handler
 * reads the Request the way handlers commonly do and answers with a Response (a warm-up that only
 * built a Response left the Request path to each integration's first request), after one JSX call.
 */
export const WARM_ENTRY = `"use strict"; ((modules) => ({ default: modules['sandbox-api'].createIntegration({
  async fetch(request, context) {
  const element = modules['sandbox-api/jsx-runtime'].jsx('text', { children: ['ok', 1] });
  void [request.method, request.url, request.headers.get('accept'), context.environment.installation, element];
  return new Response('ok', { status: 200, headers: { 'content-type': 'text/plain' } });
} }) }))`;

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
      headers: [
        ['host', 'warm-up.invalid'],
        ['accept', '*/*'],
        ['accept-language', '*'],
        ['user-agent', 'warm-up'],
        ['accept-encoding', 'gzip, deflate'],
      ],
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
  integration: {
    object: 'integration',
    name: 'warm-up',
    version: 1,
    title: 'warm-up',
    scopes: [],
    categories: [],
    visibility: 'public',
    owner: { object: 'organization', id: 'warm-up', urls: { location: WARM_URL } },
    urls: { location: WARM_URL, publicEndpoint: WARM_URL },
  },
  installation: {
    id: 'inst_warm_up',
    status: 'active',
    configuration: {},
    externalIds: [],
    target: { organization: 'warm-up' },
    urls: { location: WARM_URL, publicEndpoint: WARM_URL },
  },
  signingSecrets: { integration: 'warm-up', installation: 'warm-up' },
  secrets: {},
  id: 'inst_warm_up',
  target: 'organization',
  status: 'active',
  configuration: {},
  urls: { publicEndpoint: WARM_URL },
});
