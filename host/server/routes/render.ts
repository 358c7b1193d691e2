// `POST /v1/installations/:id/render`: renders (or acts on) one UI component of an installation.
// Must never return what render-response has not judged: invalid ContentKit and 5xx stay inside.
// An admin route: the URLs a sealed integration's component opens on its own installations'
// endpoints get their connect ticket here (oauth-seal/ticket-links.ts).

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { HostServices } from '../services.ts';
import { readJsonBody } from '../json-body.ts';
import { judgeRenderResponse } from '../render-response.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import type { Installation } from '../../installations/model.ts';
import { publicEndpointOf } from '../../installations/urls.ts';
import { withConnectTickets } from '../../oauth-seal/ticket-links.ts';

interface RenderRequest {
  componentId: string;
  props?: Record<string, unknown>;
  state?: Record<string, unknown>;
  action?: Record<string, unknown> & { action: string };
  context?: Record<string, unknown>;
}

/** The body of `POST /v1/installations/:id/render` (also in the OpenAPI description). */
export const RENDER_REQUEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['componentId'],
  properties: {
    componentId: { type: 'string', minLength: 1 },
    props: { type: 'object' },
    state: { type: 'object' },
    action: { type: 'object', required: ['action'], properties: { action: { type: 'string', minLength: 1 } } },
    context: { type: 'object' },
  },
};

const validateRenderRequest = compileBodyValidator<RenderRequest>(RENDER_REQUEST_SCHEMA);

/** The answer with connect tickets on the links into the rendered installation and its organization installation. */
function ticketed(services: HostServices, installation: Installation, body: unknown): unknown {
  if (!services.oauthSeal.applies(installation.integration)) return body;
  const ids = installation.parent === undefined ? [installation.id] : [installation.id, installation.parent];
  const endpoints = ids.map((id) => ({
    publicEndpoint: publicEndpointOf(services.baseUrl(), installation.integration, id),
    ticket: () => services.oauthSeal.mintTicket(id),
  }));
  return withConnectTickets(body, endpoints);
}

export function registerRenderRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.post('/v1/installations/:id/render', adminAuth, async (ctx) => {
    const request = validateRenderRequest(await readJsonBody(ctx));
    const installation = await services.requireInstallation(ctx.params.id);
    const event: Record<string, unknown> & { type: string } = {
      type: 'ui_render',
      componentId: request.componentId,
      props: request.props ?? {},
    };
    // Absent stays absent (not `undefined`), so the event copies cleanly across the boundary.
    if (request.state !== undefined) event.state = request.state;
    if (request.action !== undefined) event.action = request.action;
    if (request.context !== undefined) event.context = request.context;
    const outcome = await services.dispatch(installation, event, null);
    const answer = judgeRenderResponse(outcome, request.componentId);
    ctx.status = answer.status;
    // Serialized here so that a JSON `null` from an ExposableError stays a body (Koa would turn a
    // null body into a 204).
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(answer.status === 200 ? ticketed(services, installation, answer.body) : answer.body);
  });
}
