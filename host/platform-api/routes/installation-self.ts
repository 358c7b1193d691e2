// An installation's operations on itself (no scope: authenticated by its own token, so it can only
// ever touch itself): OAuth state for createOAuthHandler (issued only for a connect ticket), and
// storing what its OAuth flow obtained.
// Never takes an installation id from the request: the caller's token names it.

import { HostError } from '../../common/errors.ts';
import { installationOf, type ApiRoute, type RouteContext } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';

const own = () => ({ kind: 'own-installation' }) as const;

function objectBody(context: RouteContext<PlatformApiDeps>): Record<string, unknown> {
  const body = context.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HostError('ERR_VALIDATION', 'request body must be a JSON object');
  return body as Record<string, unknown>;
}

export const installationSelfRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'POST',
    pattern: '/v1/installation/oauth/state',
    scope: null,
    resource: own,
    async handle(context) {
      // Only for the ticket of a button an admin view showed: a guessed public URL starts nothing.
      const { ticket } = objectBody(context);
      context.deps.connectTickets.verify(installationOf(context.caller).id, ticket);
      return { status: 200, body: { state: await context.deps.oauthStates.issue(installationOf(context.caller).id) } };
    },
  },
  {
    method: 'POST',
    pattern: '/v1/installation/oauth/state/consume',
    scope: null,
    resource: own,
    async handle(context) {
      const { state } = objectBody(context);
      if (typeof state !== 'string' || state === '') {
        throw new HostError('ERR_VALIDATION', 'state is required', [
          { pointer: '/state', message: 'must be a non-empty string' },
        ]);
      }
      await context.deps.oauthStates.consume(installationOf(context.caller).id, state);
      return { status: 204 };
    },
  },
  {
    method: 'PATCH',
    pattern: '/v1/installation/configuration',
    scope: null,
    resource: own,
    handle: async (context) => ({
      status: 200,
      body: await context.deps.updateOwnConfiguration(installationOf(context.caller).id, objectBody(context)),
    }),
  },
];
