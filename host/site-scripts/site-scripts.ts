// A site's published scripts (docs/http-api.md#site-scripts): the active site installations of a
// site whose integration holds `site:script:inject` (an internal scope: only the platform's own
// integrations load with it), and each one's script, obtained by dispatching GitBook's
// `fetch_published_script` to it. Never serves anything but a 2xx script body with the host's own
// headers: a script answer cannot set cookies or other headers on the site that includes it.

import { HostError } from '../common/errors.ts';
import type { EventDispatcher } from '../dispatch/event-dispatcher.ts';
import type { Installation, InstallationStore } from '../installations/model.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { LoadedIntegration } from '../manifest/types.ts';

export interface SiteScript {
  installationId: string;
  integration: string;
  /** Where the site loads it from (GET, anyone). */
  url: string;
  /** The integration's policy for its script (its manifest's `contentSecurityPolicy`), for the site to apply. */
  contentSecurityPolicy?: string | Record<string, string>;
}

export interface SiteScripts {
  list(siteId: string): Promise<{ siteId: string; items: SiteScript[] }>;
  /**
   * The script body and its cache policy. Rejects with ERR_NOT_FOUND, ERR_SANDBOX_BAD_RESPONSE and the sandbox errors.
   */
  script(siteId: string, installationId: string): Promise<{ body: Uint8Array; cacheControl?: string }>;
}

export interface SiteScriptsDeps {
  store: InstallationStore;
  registry: IntegrationRegistry;
  dispatcher: EventDispatcher;
  baseUrl: string;
}

export function siteScriptUrlOf(baseUrl: string, siteId: string, installationId: string): string {
  return `${baseUrl}/v1/site-scripts/${encodeURIComponent(siteId)}/${encodeURIComponent(installationId)}`;
}

function injects(integration: LoadedIntegration | undefined): integration is LoadedIntegration {
  return (
    integration?.status === 'ready' &&
    integration.bundle !== undefined &&
    (integration.manifest?.scopes ?? []).includes('site:script:inject')
  );
}

function servesScripts(
  installation: Installation | undefined,
  siteId: string,
  integration: LoadedIntegration | undefined,
): boolean {
  return (
    installation !== undefined &&
    installation.target === 'site' &&
    installation.site === siteId &&
    installation.status === 'active' &&
    injects(integration)
  );
}

export function createSiteScripts(deps: SiteScriptsDeps): SiteScripts {
  return {
    async list(siteId) {
      // Only the few integrations that inject scripts are read (one cached list each), not every
      // installation of the host on every page load of a site.
      const serving: { installation: Installation; integration: LoadedIntegration }[] = [];
      for (const name of new Set(deps.registry.list().map((loaded) => loaded.name))) {
        const integration = deps.registry.get(name);
        if (!injects(integration)) continue;
        for (const installation of await deps.store.listInstallations({ integration: name })) {
          if (servesScripts(installation, siteId, integration)) serving.push({ installation, integration });
        }
      }
      // In creation order, as one list over every integration reads.
      serving.sort((a, b) =>
        a.installation.createdAt === b.installation.createdAt
          ? a.installation.id < b.installation.id
            ? -1
            : 1
          : a.installation.createdAt < b.installation.createdAt
            ? -1
            : 1,
      );
      const items = serving.map(({ installation, integration }): SiteScript => {
        const policy = integration.manifest?.contentSecurityPolicy;
        return {
          installationId: installation.id,
          integration: installation.integration,
          url: siteScriptUrlOf(deps.baseUrl, siteId, installation.id),
          ...(policy !== undefined ? { contentSecurityPolicy: policy } : {}),
        };
      });
      return { siteId, items };
    },

    async script(siteId, installationId) {
      const installation = await deps.store.getInstallation(installationId);
      // The same answer for every installation that serves no script here.
      if (
        installation === undefined ||
        !servesScripts(installation, siteId, deps.registry.get(installation.integration))
      ) {
        throw new HostError('ERR_NOT_FOUND', `site "${siteId}" has no script from installation "${installationId}"`);
      }
      const outcome = await deps.dispatcher.run(installation, { type: 'fetch_published_script', siteId }, null);
      const { status } = outcome.response;
      if (outcome.verdict === 'no-handler' || status < 200 || status > 299) {
        throw new HostError(
          'ERR_SANDBOX_BAD_RESPONSE',
          `installation "${installationId}" answered ${status} to fetch_published_script instead of a script`,
        );
      }
      const cacheControl = outcome.response.headers.find(([name]) => name.toLowerCase() === 'cache-control')?.[1];
      return { body: outcome.response.body, ...(cacheControl !== undefined ? { cacheControl } : {}) };
    },
  };
}
