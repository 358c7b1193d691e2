// Admin routes of stored integration secrets (docs/http-api.md): list the names, set one, remove
// one. Values are write-only: no answer, error or log line ever carries one, and a body that is
// not JSON is refused without quoting it (a parser's message would echo part of the value).

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { HostError } from '../../common/errors.ts';
import { adminViaOf } from '../admin-auth.ts';
import { readBody } from '../read-body.ts';
import type { HostServices } from '../services.ts';

/** A 64 KiB value written entirely as \uXXXX escapes, with room for the JSON around it. */
const MAX_SECRET_BODY_BYTES = 6 * 64 * 1024 + 1024;

async function readValue(ctx: Context): Promise<unknown> {
  const mediaType = (ctx.get('content-type') || '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') throw new HostError('ERR_UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json: {"value": "…"}');
  const bytes = await readBody(ctx.req, MAX_SECRET_BODY_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new HostError('ERR_BAD_REQUEST', 'request body is not valid UTF-8 JSON; expected {"value": "…"} (its text is not quoted here: it may hold the secret)');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HostError('ERR_VALIDATION', 'request body must be a JSON object: {"value": "…"}', [{ pointer: '', message: 'must be a JSON object' }]);
  const unknown = Object.keys(body).filter((key) => key !== 'value');
  if (unknown.length > 0) throw new HostError('ERR_VALIDATION', `/${unknown[0]}: unknown field; the body is {"value": "…"}`, [{ pointer: `/${unknown[0]}`, message: 'unknown field' }]);
  if (!Object.hasOwn(body, 'value')) throw new HostError('ERR_VALIDATION', '/value: required', [{ pointer: '/value', message: 'required' }]);
  return (body as { value: unknown }).value;
}

export function registerSecretRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.get('/v1/integrations/:name/secrets', adminAuth, async (ctx) => {
    ctx.body = await services.listSecrets(ctx.params.name);
  });

  router.put('/v1/integrations/:name/secrets/:secret', adminAuth, async (ctx) => {
    const value = await readValue(ctx);
    const { secret, created, status } = await services.setSecret(ctx.params.name, ctx.params.secret, value, adminViaOf(ctx));
    ctx.status = created ? 201 : 200;
    ctx.body = { ...secret, integrationStatus: status };
  });

  router.delete('/v1/integrations/:name/secrets/:secret', adminAuth, async (ctx) => {
    await services.unsetSecret(ctx.params.name, ctx.params.secret);
    ctx.status = 204;
  });
}
