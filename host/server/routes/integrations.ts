// Admin listing and detail of loaded integrations (valid and invalid). Must never expose secrets:
// everything goes through integration-view.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { integrationNotFound } from '../../integrations/builtin-names.ts';
import type { HostServices } from '../services.ts';
import { describeIntegration, summarizeIntegration } from '../integration-view.ts';

export function registerIntegrationRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.get('/v1/integrations', adminAuth, (ctx) => {
    ctx.body = { items: services.listIntegrations().map(summarizeIntegration) };
  });

  router.get('/v1/integrations/:name', adminAuth, (ctx) => {
    const integration = services.getIntegration(ctx.params.name);
    if (!integration)
      throw integrationNotFound(ctx.params.name, (name) => services.getIntegration(name)?.builtin !== undefined);
    const installLink = services.installLinkOf(integration.name);
    ctx.body = describeIntegration(integration, installLink === undefined ? {} : { installLink });
  });
}
