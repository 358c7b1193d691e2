// The event log of an integration: `GET /v1/integrations/:name/events` (newest first, `limit` and
// an opaque `cursor`) and `GET /v1/integrations/:name/events/:eventId`, its queued tasks
// (`GET /v1/integrations/:name/tasks`) and the setup events owed to an installation
// (`GET /v1/installations/:id/owed-events`). Reads only; the log is written where dispatches happen
// (host-services.ts), tasks and owed events by their runners, never here.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HostError } from '../../common/errors.ts';
import type { HostServices } from '../services.ts';

const DEFAULT_EVENTS_PAGE = 50;
const MAX_EVENTS_PAGE = 200;

function readLimit(raw: string | string[] | undefined): number {
  if (raw === undefined) return DEFAULT_EVENTS_PAGE;
  const value = Array.isArray(raw) ? Number.NaN : Number(raw);
  if (!/^\d+$/.test(String(raw)) || !Number.isInteger(value) || value < 1 || value > MAX_EVENTS_PAGE) {
    throw new HostError('ERR_VALIDATION', `limit must be an integer from 1 to ${MAX_EVENTS_PAGE}`, [
      { pointer: '/limit', message: `must be an integer from 1 to ${MAX_EVENTS_PAGE}` },
    ]);
  }
  return value;
}

function readCursor(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || raw === '')
    throw new HostError('ERR_VALIDATION', 'cursor must be one nextCursor value', [
      { pointer: '/cursor', message: 'is invalid' },
    ]);
  return raw;
}

export function registerIntegrationEventRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.get('/v1/integrations/:name/events', adminAuth, async (ctx) => {
    const cursor = readCursor(ctx.query.cursor);
    ctx.body = await services.listEvents(ctx.params.name, {
      limit: readLimit(ctx.query.limit),
      ...(cursor !== undefined ? { cursor } : {}),
    });
  });

  router.get('/v1/integrations/:name/events/:eventId', adminAuth, async (ctx) => {
    ctx.body = await services.getEvent(ctx.params.name, ctx.params.eventId);
  });

  // A request bearing a host API token never gets here: POST with one is GitBook's queueIntegrationTask.
  router.get('/v1/integrations/:name/tasks', adminAuth, async (ctx) => {
    const cursor = readCursor(ctx.query.cursor);
    ctx.body = await services.listTasks(ctx.params.name, {
      limit: readLimit(ctx.query.limit),
      ...(cursor !== undefined ? { cursor } : {}),
    });
  });

  router.get('/v1/installations/:id/owed-events', adminAuth, async (ctx) => {
    ctx.body = await services.listOwedEvents(ctx.params.id, readLimit(ctx.query.limit));
  });
}
