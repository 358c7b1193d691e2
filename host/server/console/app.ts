// The console's own listener: the front end (one HTML page, its two bundles and an icon, under a strict
// Content-Security-Policy), sign-in and sign-out, and the same admin routes as the API listener,
// which here also accept a console session. Never serves public endpoints or the platform API,
// so no integration's content ever shares the console's origin.

import Router from '@koa/router';
import type Koa from 'koa';
import type { Logger } from '../../common/logger.ts';
import { createAdminAuth } from '../admin-auth.ts';
import { createBaseApp, registerAdminRoutes, type AppLimits } from '../app.ts';
import { createErrorMiddleware } from '../errors-middleware.ts';
import { createNotFound } from '../not-found.ts';
import { createRequestLog } from '../request-log.ts';
import type { HostServices } from '../services.ts';
import type { ConsoleAssets } from './assets.ts';
import { createSecurityHeaders } from './security-headers.ts';
import { createSessionAuth, sessionCookieName } from './session-auth.ts';
import { registerSessionRoutes } from './session-routes.ts';
import type { ConsoleSessions } from './sessions.ts';
import { registerStaticRoutes } from './static-routes.ts';

export interface ConsoleAppOptions {
  sessions: ConsoleSessions;
  assets: ConsoleAssets;
  /** The console listener's port (it names the session cookie). */
  port: number;
  limits: AppLimits;
}

function prefixed(log: Logger, prefix: string): Logger {
  return {
    info: (m) => log.info(`${prefix}${m}`),
    warn: (m) => log.warn(`${prefix}${m}`),
    error: (m) => log.error(`${prefix}${m}`),
  };
}

export function createConsoleApp(services: HostServices, options: ConsoleAppOptions): Koa {
  const app = createBaseApp(services);
  const cookieName = sessionCookieName(options.port);
  const sessionAuth = createSessionAuth(options.sessions, cookieName);
  const router = new Router();
  registerSessionRoutes(router, {
    adminToken: services.adminToken,
    sessions: options.sessions,
    cookieName,
    auth: sessionAuth,
  });
  registerAdminRoutes(router, services, createAdminAuth(services.adminToken, sessionAuth), options.limits);
  // Last: its catch-all `/console{/*rest}` must not shadow `/console/session`.
  registerStaticRoutes(router, options.assets);

  app.use(createRequestLog(prefixed(services.log, 'console: ')));
  app.use(createSecurityHeaders());
  app.use(createErrorMiddleware(services.log));
  app.use(createNotFound());
  app.use(router.routes());
  return app;
}
