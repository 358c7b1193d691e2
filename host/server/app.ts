// The host's HTTP application: middleware order and route table (docs/http-api.md). This folder is the
// only one that imports Koa; it must reach integrations, installations and the sandbox only
// through HostServices.

import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { HostServices } from './services.ts';
import { createAdminAuth } from './admin-auth.ts';
import { createErrorMiddleware } from './errors-middleware.ts';
import { createNotFound } from './not-found.ts';
import { createRequestLog, requestIdOf, requestIdSource } from './request-log.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createDirectPublicFetch } from './direct-public-fetch.ts';
import { createPublicFetch } from './public-fetch.ts';
import { registerConfigurationRoutes } from './routes/configuration.ts';
import { registerEnvelopeRoutes } from './routes/envelope.ts';
import { registerEventRoutes } from './routes/events.ts';
import {
  DEFAULT_EVENT_STREAM_LIMITS,
  registerEventStreamRoutes,
  type EventStreamLimits,
} from './routes/event-stream.ts';
import { registerWebhookRoutes } from './routes/webhooks.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerOperationsRoutes } from './routes/operations.ts';
import { registerInstallationRoutes } from './routes/installations.ts';
import { registerIntegrationRoutes } from './routes/integrations.ts';
import { registerIntegrationEventRoutes } from './routes/integration-events.ts';
import { createApiTokenRouting, registerPlatformApiRoutes } from './routes/platform-api.ts';
import { registerPublicEndpointRoutes } from './routes/public-endpoint.ts';
import { registerRenderRoutes } from './routes/render.ts';
import { registerConsoleRedirect } from './console/redirect.ts';
import { registerRootPointer } from './routes/root.ts';
import { registerSiteScriptRoutes } from './routes/site-scripts.ts';
import { registerSecretRoutes } from './routes/secrets.ts';
import { registerPublisherRoutes } from './routes/publishers.ts';
import { registerVersionRoutes } from './routes/versions.ts';
import { registerOpenApiRoute } from './routes/openapi.ts';
import { createOpenApiDocument } from './openapi/document.ts';
import { packageVersion } from '../common/package-root.ts';

export interface AppLimits {
  maxPublicBodyBytes: number;
  maxEnvelopeBytes: number;
  /** Keep-alive interval and slow-client bound of the event stream (defaults: 15 s, 1 MiB). */
  eventStream?: EventStreamLimits;
}

export const DEFAULT_APP_LIMITS: AppLimits = { maxPublicBodyBytes: 1_048_576, maxEnvelopeBytes: 1_048_576 };

/**
 * The admin routes (bearer token, and a console session on the console's listener). Both
 * listeners register exactly these, so the console uses the documented API and nothing else.
 */
export function registerAdminRoutes(
  router: Router,
  services: HostServices,
  adminAuth: Middleware,
  limits: AppLimits,
): void {
  registerIntegrationRoutes(router, services, adminAuth);
  registerSecretRoutes(router, services, adminAuth);
  registerVersionRoutes(router, services, adminAuth);
  registerPublisherRoutes(router, services, adminAuth);
  registerInstallationRoutes(router, services, adminAuth);
  registerConfigurationRoutes(router, services, adminAuth);
  // Before the event routes, so `stream` is never taken for an event id.
  registerEventStreamRoutes(router, services, adminAuth, limits.eventStream ?? DEFAULT_EVENT_STREAM_LIMITS);
  registerIntegrationEventRoutes(router, services, adminAuth);
  registerRenderRoutes(router, services, adminAuth);
  registerEventRoutes(router, services, adminAuth);
  registerWebhookRoutes(router, services, adminAuth);
  registerEnvelopeRoutes(router, services, adminAuth, limits.maxEnvelopeBytes);
}

/** The Koa application without routes: quiet, not behind a proxy, errors to the host's logger. */
export function createBaseApp(services: HostServices): Koa {
  const app = new Koa();
  // The host is reached directly; X-Forwarded-* from a client must not change ctx.ip/host/protocol.
  app.proxy = false;
  // Koa would print stacks to stderr itself; errors reach the host's logger instead.
  app.silent = true;
  app.on('error', (error: unknown, ctx?: Koa.Context) => {
    const id = ctx ? requestIdOf(ctx) : '-';
    const code = (error as { code?: unknown } | null)?.code;
    // A client that hangs up mid-response is routine, not a host failure.
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    services.log.error(
      `request ${id}: response failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  });
  return app;
}

export interface AppOptions {
  /** Where the console listens, when it runs: `GET /console` here redirects there. */
  consoleUrl?: string;
}

/**
 * The API listener's route table. Exposed on its own so the OpenAPI document's test can compare
 * what is registered with what is documented (host/server/openapi/).
 */
export function createApiRouter(
  services: HostServices,
  limits: AppLimits = DEFAULT_APP_LIMITS,
  options: AppOptions = {},
): Router {
  const adminAuth = createAdminAuth(services.adminToken);
  const router = new Router();
  registerHealthRoutes(router);
  registerOperationsRoutes(router, services, adminAuth);
  registerOpenApiRoute(
    router,
    createOpenApiDocument({ version: packageVersion(), console: options.consoleUrl !== undefined }),
  );
  registerAdminRoutes(router, services, adminAuth, limits);
  registerPublicEndpointRoutes(router, services, limits.maxPublicBodyBytes);
  registerPlatformApiRoutes(router, services);
  if (options.consoleUrl !== undefined) registerConsoleRedirect(router, options.consoleUrl);
  registerRootPointer(router, options.consoleUrl);
  registerSiteScriptRoutes(router, services);
  return router;
}

export function createApp(
  services: HostServices,
  limits: AppLimits = DEFAULT_APP_LIMITS,
  options: AppOptions = {},
  nextRequestId: () => string = requestIdSource(),
): Koa {
  const app = createBaseApp(services);
  const router = createApiRouter(services, limits, options);

  app.use(createRequestLog(services.log, nextRequestId));
  app.use(createErrorMiddleware(services.log));
  // Ahead of the router: requests bearing a host API token on paths the API shares with public
  // endpoints and admin routes are API calls.
  app.use(createApiTokenRouting(services));
  app.use(createNotFound());
  app.use(router.routes());
  return app;
}

/**
 * The host listener's request handler: the public endpoints' plain requests straight from
 * node:http (direct-public-fetch.ts, the same answers without Koa's per-request work), everything
 * else through the Koa app. Both draw request ids from one source.
 */
export function createRequestListener(
  services: HostServices,
  limits: AppLimits = DEFAULT_APP_LIMITS,
  options: AppOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const nextRequestId = requestIdSource();
  const koa = createApp(services, limits, options, nextRequestId).callback();
  const direct = createDirectPublicFetch(
    createPublicFetch(services, limits.maxPublicBodyBytes),
    nextRequestId,
    services.log,
  );
  return (req, res) => {
    if (!direct(req, res)) void koa(req, res);
  };
}
