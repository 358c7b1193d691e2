// GitBook's installation objects for the host's installation records: `IntegrationInstallation`
// (an organization installation), `IntegrationSpaceInstallation` / `IntegrationSiteInstallation`
// (a space or site installation under it), as the environment and the GitBook API routes show
// them. Pure; configuration is shown in full, as GitBook shows it to the integration itself.

import type { Installation } from '../installations/model.ts';
import { contentInstallationLocationOf, installationAppOf, publicEndpointOf } from '../installations/urls.ts';

export interface InstallationShapeContext {
  baseUrl: string;
  /** How many spaces an organization has (what an installation selecting "all" manages). */
  organizationSpaceCount(organization: string): number;
}

/** The shape context of a host: its base URL and each organization's space count, counted once. */
export function installationShapesOf(
  baseUrl: string,
  spaces: readonly { organization: string }[],
): InstallationShapeContext {
  const counts = new Map<string, number>();
  for (const space of spaces) counts.set(space.organization, (counts.get(space.organization) ?? 0) + 1);
  return { baseUrl, organizationSpaceCount: (organization) => counts.get(organization) ?? 0 };
}

function endpoints(
  baseUrl: string,
  installation: Installation,
): { publicEndpoint: string; publicContentEndpoint: string } {
  const publicEndpoint = publicEndpointOf(baseUrl, installation.integration, installation.id);
  return { publicEndpoint, publicContentEndpoint: publicEndpoint };
}

/** `IntegrationInstallation`: an organization installation. */
export function gitbookInstallation(
  context: InstallationShapeContext,
  installation: Installation,
): Record<string, unknown> {
  const selection = installation.spaceSelection ?? 'all';
  const all = selection === 'all';
  return {
    id: installation.id,
    status: installation.status,
    // GitBook's two words for "every space" and "the listed ones"; sites follow the spaces they show.
    space_selection: all ? 'all' : 'selected',
    site_selection: all ? 'all' : 'selected',
    spaces: all ? context.organizationSpaceCount(installation.organization) : selection.length,
    configuration: installation.configuration,
    externalIds: installation.externalIds ?? [],
    target: { organization: installation.organization },
    createdAt: installation.createdAt,
    updatedAt: installation.updatedAt ?? installation.createdAt,
    urls: {
      location: publicEndpointOf(context.baseUrl, installation.integration, installation.id),
      app: installationAppOf(context.baseUrl, installation.id),
      ...endpoints(context.baseUrl, installation),
    },
  };
}

/**
 * `IntegrationEnvironmentSpaceInstallation` / `…SiteInstallation` (and, with `expanded` set, the
 * API's `IntegrationSpaceInstallation` / `IntegrationSiteInstallation` with the space or site object).
 */
export function gitbookContentInstallation(
  context: InstallationShapeContext,
  installation: Installation,
  expanded?: Record<string, unknown>,
): Record<string, unknown> {
  const kind = installation.target === 'space' ? 'space' : 'site';
  const contentId = (kind === 'space' ? installation.space : installation.site) ?? '';
  const parent = installation.parent ?? installation.id;
  return {
    integration: installation.integration,
    installation: parent,
    status: installation.status,
    configuration: installation.configuration,
    externalIds: installation.externalIds ?? [],
    urls: {
      location: contentInstallationLocationOf(
        context.baseUrl,
        installation.integration,
        parent,
        kind === 'space' ? 'spaces' : 'sites',
        contentId,
      ),
      ...endpoints(context.baseUrl, installation),
    },
    [kind]: expanded ?? contentId,
  };
}
