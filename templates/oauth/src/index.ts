// {{title}}: `/oauth` runs the OAuth flow of the Connect button (createOAuthHandler: redirect to
// the provider, then exchange the code and store the token in the installation's configuration);
// `/status` says whether this installation is connected. Everything else is 404.
import { createIntegration, createOAuthHandler } from 'sandbox-api';

const oauth = createOAuthHandler(({ environment }) => ({
  clientId: environment.secrets?.CLIENT_ID ?? '',
  clientSecret: environment.secrets?.CLIENT_SECRET ?? '',
  authorizeURL: environment.secrets?.AUTHORIZE_URL ?? '',
  accessTokenURL: environment.secrets?.TOKEN_URL ?? '',
  scopes: ['read'],
  async extractCredentials(response) {
    if (!response.ok) throw new Error(`the provider answered ${response.status}`);
    const body = (await response.json()) as { access_token?: string };
    if (typeof body.access_token !== 'string') throw new Error('the provider sent no access_token');
    return { configuration: { oauth_credentials: { access_token: body.access_token } } };
  },
}));

export default createIntegration({
  async fetch(request, context) {
    // The endpoint of the installation dispatched to (`integration.urls.publicEndpoint` is the same URL).
    const base = new URL(context.environment.urls?.publicEndpoint ?? request.url).pathname;
    const path = new URL(request.url).pathname.slice(base.length) || '/';
    if (path === '/oauth') return oauth(request, context);
    if (path === '/status') {
      const { status, configuration } = context.environment;
      return Response.json({ status, connected: configuration?.oauth_credentials !== undefined });
    }
    return new Response('Not found', { status: 404 });
  },
  events: {
    async installation_setup(event) {
      console.log(`installation is ${String(event.status)}`);
    },
  },
});
