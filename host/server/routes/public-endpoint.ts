// The public endpoints, open to anyone: each installation's (`ANY /v1/integrations/:name/installations/:id[/...]`)
// and each integration's own (`ANY /v1/integrations/:name/integration[/...]`, GitBook's
// `integration.urls.publicEndpoint`): request → `fetch` event → the integration's Response. Must
// never require the caller's credentials (they are the integration's business); the only changes
// are those that keep integrations apart in a browser (browser-isolation.ts: own cookies only,
// sandboxed answers). Requests carrying a host API token never get here (platform-api.ts).

import type Router from '@koa/router';
import type { HostServices } from '../services.ts';
import { sendSandboxResponse } from '../send-sandbox-response.ts';
import { requestTarget } from '../request-target.ts';
import { createPublicFetch } from '../public-fetch.ts';

export function registerPublicEndpointRoutes(router: Router, services: HostServices, maxBodyBytes: number): void {
  // The same work as the direct path in front of Koa (direct-public-fetch.ts), which serves most
  // of these requests; what it leaves to Koa (API tokens, unusual paths) comes here.
  const publicFetch = createPublicFetch(services, maxBodyBytes);
  router.all('/v1/integrations/:name/installations/:id{/*rest}', async (ctx) => {
    const { name, id } = ctx.params;
    sendSandboxResponse(ctx, await publicFetch.installation(ctx.req, requestTarget(ctx), name, id));
  });

  // The integration's own endpoint: one fixed URL per integration (an OAuth provider's redirect
  // URI, a third party's webhook), dispatched with no installation and the integration token only.
  router.all('/v1/integrations/:name/integration{/*rest}', async (ctx) => {
    sendSandboxResponse(ctx, await publicFetch.integration(ctx.req, requestTarget(ctx), ctx.params.name));
  });

  // The integration's assets folder (its icon, preview images, images its pages show).
  router.get('/v1/integrations/:name/assets/*path', async (ctx) => {
    const { bytes, contentType } = await services.readIntegrationAsset(ctx.params.name, ctx.params.path);
    ctx.set('content-type', contentType);
    ctx.set('x-content-type-options', 'nosniff');
    // An SVG or any other document opened directly runs in an opaque origin, like the endpoints' answers.
    ctx.set('content-security-policy', "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'");
    ctx.set('cache-control', 'public, max-age=300');
    ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  });
}
