// A site's published scripts (docs/http-api.md#site-scripts): the active site installations of a
// site whose integration holds `site:script:inject` (an internal scope: only the platform's own
// integrations load with it), and each one's script, obtained by dispatching GitBook's
// `fetch_published_script` to it. Never serves anything but a 2xx script body with the host's own
// headers: a script answer cannot set cookies or other headers on the site that includes it.

import { HostError } from '../common/errors.ts';
import type { Dispatcher } from '../dispatch/dispatcher.ts';
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
  /** The script body and its cache policy. Rejects with ERR_NOT_FOUND, ERR_SANDBOX_BAD_RESPONSE and the sandbox errors. */
  script(siteId: string, installationId: string): Promise<{ body: Uint8Array; cacheControl?: string }>;
}

export interface SiteScriptsDeps {
  store: InstallationStore;
  registry: IntegrationRegistry;
  dispatcher: Dispatcher;
  baseUrl: string;
}

export function siteScriptUrlOf(baseUrl: string, siteId: string, installationId: string): string {
  return `${baseUrl}/v1/site-scripts/${encodeURIComponent(siteId)}/${encodeURIComponent(installationId)}`;
}

function injects(integration: LoadedIntegration | undefined): integration is LoadedIntegration {
  return integration?.status === 'ready' && integration.bundle !== undefined && (integration.manifest?.scopes ?? []).includes('site:script:inject');
}

function servesScripts(installation: Installation | undefined, siteId: string, integration: LoadedIntegration | undefined): boolean {
  return installation !== undefined && installation.target === 'site' && installation.site === siteId && installation.status === 'active' && injects(integration);
}

export function createSiteScripts(deps: SiteScriptsDeps): SiteScripts {
  return {
    async list(siteId) {
      const items = (await deps.store.listInstallations())
        .filter((installation) => servesScripts(installation, siteId, deps.registry.get(installation.integration)))
        .map((installation): SiteScript => {
          const policy = deps.registry.get(installation.integration)?.manifest?.contentSecurityPolicy;
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
      if (installation === undefined || !servesScripts(installation, siteId, deps.registry.get(installation.integration))) {
        throw new HostError('ERR_NOT_FOUND', `site "${siteId}" has no script from installation "${installationId}"`);
      }
      const outcome = await deps.dispatcher.run(installation, { type: 'fetch_published_script', siteId }, null);
      const { status } = outcome.response;
      if (outcome.verdict === 'no-handler' || status < 200 || status > 299) {
        throw new HostError('ERR_SANDBOX_BAD_RESPONSE', `installation "${installationId}" answered ${status} to fetch_published_script instead of a script`);
      }
      const cacheControl = outcome.response.headers.find(([name]) => name.toLowerCase() === 'cache-control')?.[1];
      return { body: outcome.response.body, ...(cacheControl !== undefined ? { cacheControl } : {}) };
    },
  };
}
