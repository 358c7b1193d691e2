// The installations' public endpoints (`ANY /v1/integrations/:name/installations/:id[/...]`), open
// to anyone: request → `fetch` event → the integration's Response. Must never require the
// caller's credentials (they are the integration's business); the only changes are those that
// keep integrations apart in a browser (browser-isolation.ts: own cookies only, sandboxed answers).

import type Router from '@koa/router';
import { HostError } from '../../common/errors.ts';
import type { HostServices } from '../services.ts';
import { buildFetchEvent } from '../fetch-event.ts';
import { checkDeclaredLength, readBody } from '../read-body.ts';
import { sendSandboxResponse } from '../send-sandbox-response.ts';
import { requestTarget } from '../request-target.ts';
import { cookiesForInstallation, isolateInBrowser } from '../browser-isolation.ts';
import { publicEndpointOf } from '../../installations/urls.ts';

// Methods a fetch Request cannot carry (the WHATWG forbidden methods): the runtime would throw
// building the integration's Request, and the caller's request would come back as its 500.
const UNREPRESENTABLE_METHODS = ['CONNECT', 'TRACE', 'TRACK'];

export function registerPublicEndpointRoutes(router: Router, services: HostServices, maxBodyBytes: number): void {
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

    if (UNREPRESENTABLE_METHODS.includes(ctx.method)) {
      throw new HostError('ERR_METHOD_NOT_ALLOWED', `${ctx.method} requests cannot be passed to an integration`);
    }

    const body = await readBody(ctx.req, maxBodyBytes);
    const event = buildFetchEvent(installation.id, ctx.req, services.baseUrl(), requestTarget(ctx));
    // Every endpoint shares the host's origin: an installation gets only the cookies it set.
    event.request.headers = event.request.headers.flatMap(([header, value]): [string, string][] => {
      if (header !== 'cookie') return [[header, value]];
      const own = cookiesForInstallation(value, installation.id);
      return own === null ? [] : [['cookie', own]];
    });
    // A fresh copy: small Buffers can be slices of Node's shared pool, whose other bytes must
    // never travel with the body.
    const outcome = await services.dispatch(installation, event, body.length > 0 ? new Uint8Array(body) : null);
    const endpointPath = new URL(publicEndpointOf(services.baseUrl(), installation.integration, installation.id)).pathname;
    sendSandboxResponse(ctx, isolateInBrowser(outcome.response, installation.id, endpointPath));
  });
}
