// `POST /v1/installations/:id/render`: renders (or acts on) one UI component of an installation.
// Must never return what render-response has not judged: invalid ContentKit and 5xx stay inside.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { HostServices } from '../services.ts';
import { readJsonBody } from '../json-body.ts';
import { judgeRenderResponse } from '../render-response.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';

interface RenderRequest {
  componentId: string;
  props?: Record<string, unknown>;
  state?: Record<string, unknown>;
  action?: Record<string, unknown> & { action: string };
  context?: Record<string, unknown>;
}

const validateRenderRequest = compileBodyValidator<RenderRequest>({
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
});

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
    ctx.body = JSON.stringify(answer.body);
  });
}
