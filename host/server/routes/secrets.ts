// Admin routes of stored integration secrets (docs/http-api.md): list the names, set one, remove
// one. Values are write-only: no answer, error or log line ever carries one, and a body that is
// not JSON is refused without quoting it (a parser's message would echo part of the value).

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { HostError } from '../../common/errors.ts';
import { adminViaOf } from '../admin-auth.ts';
import { readJsonObject } from '../json-body.ts';
import type { HostServices } from '../services.ts';

/** A 64 KiB value written entirely as \uXXXX escapes, with room for the JSON around it. */
const MAX_SECRET_BODY_BYTES = 6 * 64 * 1024 + 1024;

async function readValue(ctx: Context): Promise<unknown> {
  const body = await readJsonObject(ctx, MAX_SECRET_BODY_BYTES, { expected: '{"value": "…"}', secret: true });
  const unknown = Object.keys(body).filter((key) => key !== 'value');
  if (unknown.length > 0)
    throw new HostError('ERR_VALIDATION', `/${unknown[0]}: unknown field; the body is {"value": "…"}`, [
      { pointer: `/${unknown[0]}`, message: 'unknown field' },
    ]);
  if (!Object.hasOwn(body, 'value'))
    throw new HostError('ERR_VALIDATION', '/value: required', [{ pointer: '/value', message: 'required' }]);
  return body.value;
}

export function registerSecretRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.get('/v1/integrations/:name/secrets', adminAuth, async (ctx) => {
    ctx.body = await services.listSecrets(ctx.params.name);
  });

  router.put('/v1/integrations/:name/secrets/:secret', adminAuth, async (ctx) => {
    const value = await readValue(ctx);
    const { secret, created, status } = await services.setSecret(
      ctx.params.name,
      ctx.params.secret,
      value,
      adminViaOf(ctx),
    );
    ctx.status = created ? 201 : 200;
    ctx.body = { ...secret, integrationStatus: status };
  });

  router.delete('/v1/integrations/:name/secrets/:secret', adminAuth, async (ctx) => {
    await services.unsetSecret(ctx.params.name, ctx.params.secret);
    ctx.status = 204;
  });
}
