// The public endpoints, open to anyone: each installation's (`ANY /v1/integrations/:name/installations/:id[/...]`)
// and each integration's own (`ANY /v1/integrations/:name/integration[/...]`, GitBook's
// `integration.urls.publicEndpoint`): request → `fetch` event → the integration's Response. Must
// never require the caller's credentials (they are the integration's business); the only changes
// are those that keep integrations apart in a browser (browser-isolation.ts: own cookies only,
// sandboxed answers). Requests carrying a host API token never get here (platform-api.ts).

import type Router from '@koa/router';
import type { Context } from 'koa';
import { HostError } from '../../common/errors.ts';
import type { HostServices } from '../services.ts';
import { buildFetchEvent } from '../fetch-event.ts';
import { checkDeclaredLength, readBody } from '../read-body.ts';
import { sendSandboxResponse } from '../send-sandbox-response.ts';
import { requestTarget } from '../request-target.ts';
import { cookiesForInstallation, integrationCookieKey, isolateInBrowser } from '../browser-isolation.ts';
import { integrationEndpointOf, publicEndpointOf } from '../../installations/urls.ts';
import type { Installation } from '../../installations/model.ts';

// Methods a fetch Request cannot carry (the WHATWG forbidden methods): the runtime would throw
// building the integration's Request, and the caller's request would come back as its 500.
const UNREPRESENTABLE_METHODS = ['CONNECT', 'TRACE', 'TRACK'];

/** The fetch event of a public request: its own cookies only (`cookieKey` is the endpoint's namespace). */
function fetchEventOf(ctx: Context, services: HostServices, installationId: string, cookieKey: string) {
  if (UNREPRESENTABLE_METHODS.includes(ctx.method)) {
    throw new HostError('ERR_METHOD_NOT_ALLOWED', `${ctx.method} requests cannot be passed to an integration`);
  }
  const event = buildFetchEvent(installationId, ctx.req, services.baseUrl(), requestTarget(ctx));
  // Every endpoint shares the host's origin: an endpoint gets only the cookies it set.
  event.request.headers = event.request.headers.flatMap(([header, value]): [string, string][] => {
    if (header !== 'cookie') return [[header, value]];
    const own = cookiesForInstallation(value, cookieKey);
    return own === null ? [] : [['cookie', own]];
  });
  return event;
}

/**
 * The path of an installation's public endpoint (where its cookies are scoped), parsed once per
 * installation record and base URL instead of once per request. Records are replaced, never
 * mutated, when they change, so a stale entry is never read.
 */
function endpointPathOf(services: HostServices): (installation: Installation) => string {
  const paths = new WeakMap<Installation, { baseUrl: string; path: string }>();
  return (installation) => {
    const baseUrl = services.baseUrl();
    const known = paths.get(installation);
    if (known !== undefined && known.baseUrl === baseUrl) return known.path;
    const path = new URL(publicEndpointOf(baseUrl, installation.integration, installation.id)).pathname;
    paths.set(installation, { baseUrl, path });
    return path;
  };
}

export function registerPublicEndpointRoutes(router: Router, services: HostServices, maxBodyBytes: number): void {
  const endpointPath = endpointPathOf(services);
  router.all('/v1/integrations/:name/installations/:id{/*rest}', async (ctx) => {
    const { name, id } = ctx.params;
    checkDeclaredLength(ctx.req, maxBodyBytes);

    // Same answer for "no such installation" and "installation of another integration": a public
    // caller learns nothing about installations that are not behind this URL. The record found
    // here is the one dispatched: one lookup per request.
    const installation = await services.findInstallation(id);
    if (installation === undefined || installation.integration !== name) {
      throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" of integration "${name}" not found`);
    }

    const event = fetchEventOf(ctx, services, installation.id, installation.id);
    const body = await readBody(ctx.req, maxBodyBytes);
    // A fresh copy: small Buffers can be slices of Node's shared pool, whose other bytes must
    // never travel with the body.
    const outcome = await services.dispatch(installation, event, body.length > 0 ? new Uint8Array(body) : null);
    sendSandboxResponse(ctx, isolateInBrowser(outcome.response, installation.id, endpointPath(installation)));
  });

  // The integration's own endpoint: one fixed URL per integration (an OAuth provider's redirect
  // URI, a third party's webhook), dispatched with no installation and the integration token only.
  router.all('/v1/integrations/:name/integration{/*rest}', async (ctx) => {
    const { name } = ctx.params;
    checkDeclaredLength(ctx.req, maxBodyBytes);
    const cookieKey = integrationCookieKey(name);
    const { installationId: _none, ...event } = fetchEventOf(ctx, services, '', cookieKey);
    const body = await readBody(ctx.req, maxBodyBytes);
    const outcome = await services.dispatchToIntegration(name, event, body.length > 0 ? new Uint8Array(body) : null);
    const endpointPath = new URL(integrationEndpointOf(services.baseUrl(), name)).pathname;
    sendSandboxResponse(ctx, isolateInBrowser(outcome.response, cookieKey, endpointPath));
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
