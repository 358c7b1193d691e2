// Assembly step 6: the platform API integrations call (HTTP with a token, or a guest fetch to
// environment.apiEndpoint through the sandbox, which never touches the network). Wires only.

import { findOrganization } from '../platform-data/data.ts';
import { installationShapesOf } from '../gitbook/installation.ts';
import { createOAuthStates } from '../installations/oauth-state.ts';
import { deriveInstallationToken, hashToken, verifyIntegrationToken } from '../installations/tokens.ts';
import { apiToBridgeResponse, bridgeToApiRequest } from '../platform-api/bridge-adapter.ts';
import { createPlatformApi } from '../platform-api/router.ts';
import { platformRoutes } from '../platform-api/routes/index.ts';
import type { Supervisor } from '../sandbox/supervisor.ts';
import type { DispatchStep } from './step-dispatch.ts';
import type { Listeners } from './step-listeners.ts';
import type { IntegrationsStep } from './step-sandbox.ts';
import type { StoresStep } from './step-stores.ts';
import type { AssemblyBase } from './step-types.ts';

export function wirePlatformApi(
  { options, log, platform }: AssemblyBase,
  { baseUrl }: Listeners,
  { stores, directory, tokenSecret }: StoresStep,
  { registry }: IntegrationsStep,
  supervisor: Supervisor,
  { lifecycle, connectTickets, installations, queueTask }: DispatchStep,
) {
  const installationLookup = {
    get: (id: string) => stores.installations.getInstallation(id),
    children: (parentId: string) => stores.installations.listInstallations({ parent: parentId }),
  };
  const platformApi = createPlatformApi({
    routes: platformRoutes,
    deps: {
      platform: stores.platform,
      log,
      directory,
      installations: installationLookup,
      gitbook: {
        baseUrl,
        shapes: installationShapesOf(baseUrl, platform.spaces),
        organization: (id) => {
          // By id only (findOrganization also takes a subdomain).
          const found = findOrganization(platform, id);
          return found?.id === id ? found : undefined;
        },
        installationToken: (id) => deriveInstallationToken(tokenSecret, id),
        listInstallations: (integration) => stores.installations.listInstallations({ integration }),
        editInstallation: (id, edit) => lifecycle.editFromIntegration(id, edit),
        queueTask,
      },
      connectTickets,
      quotas: {
        maxPagesPerSpace: options.limits.maxPagesPerSpace,
        maxSpaceContentBytes: options.limits.maxSpaceContentBytes,
        maxConversationBytesPerInstallation: options.limits.maxConversationBytesPerInstallation,
      },
      oauthStates: createOAuthStates({
        store: stores.oauthStates,
        secret: tokenSecret,
        now: options.clock,
        ttlMs: options.oauthStateTtlMs,
      }),
      updateOwnConfiguration: async (installationId, patch) =>
        installations.view(await lifecycle.editConfiguration(installationId, patch, 'integration')),
    },
    directory,
    installations: installationLookup,
    resolveToken: async (token) => {
      const integration = verifyIntegrationToken(tokenSecret, token);
      if (integration !== undefined) return { integration };
      const owner = await stores.installations.findTokenOwner(hashToken(token));
      const installation = owner === undefined ? undefined : await stores.installations.getInstallation(owner);
      return installation === undefined ? undefined : { installation };
    },
    getIntegration: (name) => registry.get(name),
    log,
  });
  // Guest fetches to environment.apiEndpoint: the same handlers as HTTP, never the network.
  supervisor.serveApi(async (integration, request) => ({
    ok: true,
    value: apiToBridgeResponse(await platformApi.handle(bridgeToApiRequest(request), { integration }), request.url),
  }));
  return platformApi;
}
