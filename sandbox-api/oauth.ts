// createOAuthHandler (docs/installations.md): the fetch handler behind an OAuth button. Provided to the
// integration by the runtime (runtime/provided.ts) and run in its isolate; it reaches the host only through the
// platform API with the installation's own token, and stores nothing unless the state checks out and the token exchange
// works.
import type { FetchHandler, IntegrationContext } from './types.ts';

/** What extractCredentials returns: properties merged into the installation's configuration. */
export interface OAuthCredentials {
  configuration: Record<string, unknown>;
}

export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  authorizeURL: string;
  accessTokenURL: string;
  /** Default: the public endpoint of the installation the button belongs to + `/oauth`. */
  redirectURL?: string;
  scopes?: string[];
  prompt?: string;
  /** Default: the documented sample (throws unless ok; stores `oauth_credentials: { access_token }`). */
  extractCredentials?: (response: Response) => OAuthCredentials | Promise<OAuthCredentials>;
}

/** A config, or a function of the context (client id and secret usually come from `environment.secrets`). */
export type OAuthConfigSource = OAuthConfig | ((context: IntegrationContext) => OAuthConfig);

const REQUIRED = ['clientId', 'clientSecret', 'authorizeURL', 'accessTokenURL'] as const;

async function sampleExtractCredentials(response: Response): Promise<OAuthCredentials> {
  if (!response.ok) throw new Error(`the token endpoint answered ${response.status}`);
  const body = (await response.json()) as { access_token?: unknown };
  if (typeof body?.access_token !== 'string') throw new Error('the token endpoint answered without an access_token');
  return { configuration: { oauth_credentials: { access_token: body.access_token } } };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(status: number, title: string, message: string): Response {
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
  return new Response(html, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** The host's `{ error: { message } }`, or the status when the body says nothing readable. */
async function reasonOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body?.error?.message === 'string') return body.error.message;
  } catch {
    // Not JSON: fall through to the status.
  }
  return `the host answered ${response.status}`;
}

/** A call to the platform API as the installation itself (the token decides which installation). */
function selfApi(context: IntegrationContext) {
  const { apiEndpoint, apiTokens } = context.environment;
  return (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${String(apiEndpoint).replace(/\/+$/, '')}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiTokens?.installation ?? ''}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

export function createOAuthHandler(source: OAuthConfigSource): FetchHandler {
  if (typeof source !== 'function' && (source === null || typeof source !== 'object'))
    throw new TypeError('createOAuthHandler() needs a configuration');

  return async (request, context) => {
    const config = typeof source === 'function' ? source(context) : source;
    const missing = REQUIRED.filter((key) => typeof config?.[key] !== 'string' || config[key] === '');
    if (missing.length > 0) return page(500, 'OAuth is not configured', `Missing: ${missing.join(', ')}.`);
    const api = selfApi(context);
    const url = new URL(request.url);
    // The dispatched installation's own endpoint (the top-level `urls`), where its state is consumed.
    const redirectUri = config.redirectURL ?? `${context.environment.urls?.publicEndpoint ?? ''}/oauth`;

    const denied = url.searchParams.get('error');
    if (denied !== null) return page(400, 'Connection refused', `The provider answered: ${denied}`);

    const code = url.searchParams.get('code');
    if (code === null) {
      // The button URL an admin view handed out carries a ticket; the host issues a state only for it.
      const answer = await api('POST', '/v1/installation/oauth/state', {
        ticket: url.searchParams.get('ticket') ?? '',
      });
      // 403: the link carried no valid connect ticket (the host says why); anything else is the host's failure.
      if (!answer.ok)
        return page(answer.status === 403 ? 403 : 502, 'Could not start the connection', await reasonOf(answer));
      const { state } = (await answer.json()) as { state: string };
      const target = new URL(config.authorizeURL);
      target.searchParams.set('client_id', config.clientId);
      target.searchParams.set('redirect_uri', redirectUri);
      target.searchParams.set('response_type', 'code');
      if (config.scopes && config.scopes.length > 0) target.searchParams.set('scope', config.scopes.join(' '));
      if (config.prompt) target.searchParams.set('prompt', config.prompt);
      target.searchParams.set('state', state);
      return new Response(null, { status: 302, headers: { location: target.toString(), 'cache-control': 'no-store' } });
    }

    // The state is spent before the code is used: a replayed callback can never store twice.
    const state = url.searchParams.get('state');
    if (!state) return page(400, 'Invalid OAuth callback', 'The callback carries no state.');
    const consumed = await api('POST', '/v1/installation/oauth/state/consume', { state });
    if (!consumed.ok)
      return page(consumed.status === 400 ? 400 : 502, 'Invalid OAuth callback', await reasonOf(consumed));

    let credentials: OAuthCredentials;
    try {
      const form = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: config.clientId,
        client_secret: config.clientSecret,
      });
      const tokenResponse = await fetch(config.accessTokenURL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
      });
      credentials = await (config.extractCredentials ?? sampleExtractCredentials)(tokenResponse);
    } catch (error) {
      return page(
        502,
        'Could not connect',
        `Could not connect: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const configuration = credentials?.configuration;
    if (configuration === null || typeof configuration !== 'object' || Array.isArray(configuration)) {
      return page(502, 'Could not connect', 'Could not connect: extractCredentials returned no configuration object.');
    }
    const stored = await api('PATCH', '/v1/installation/configuration', configuration);
    if (!stored.ok) return page(502, 'Could not store the connection', await reasonOf(stored));
    return page(200, 'Connected', 'The connection is stored. You can close this window.');
  };
}
