// The development convenience of `npm run host`: each ready integration with no installation yet
// is installed once at organization level in its manifest's organization, so its endpoint works
// at once. Never touches built-ins (their target and configuration are the user's choice).

import type { InstallationView } from '../installations/model.ts';
import type { InstallationService } from '../installations/service.ts';
import type { InstallationStore } from '../installations/model.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { findOrganization, type PlatformData } from '../platform-data/data.ts';

export interface DevInstallation {
  integration: string;
  installation?: InstallationView;
  note?: string;
}

/** The integration's first installation, or a new organization-level one; undefined for what is not installable. */
export async function installOneForDevelopment(
  integration: LoadedIntegration,
  installations: InstallationService,
  store: InstallationStore,
  platform: PlatformData,
): Promise<DevInstallation | undefined> {
  if (integration.status !== 'ready' || integration.manifest === undefined || integration.builtin !== undefined)
    return undefined;
  const existing = (await store.listInstallations({ integration: integration.name, limit: 1 }))[0];
  if (existing) return { integration: integration.name, installation: installations.view(existing) };
  const organization = findOrganization(platform, integration.manifest.organization);
  if (organization === undefined) {
    return {
      integration: integration.name,
      note: `organization "${integration.manifest.organization}" is not in the platform data; not installed`,
    };
  }
  return {
    integration: integration.name,
    installation: await installations.create(integration.name, {
      organization: organization.id,
      target: 'organization',
    }),
  };
}

export async function installForDevelopment(
  registry: IntegrationRegistry,
  installations: InstallationService,
  store: InstallationStore,
  platform: PlatformData,
): Promise<DevInstallation[]> {
  const result: DevInstallation[] = [];
  for (const integration of registry.list()) {
    const made = await installOneForDevelopment(integration, installations, store, platform);
    if (made !== undefined) result.push(made);
  }
  return result;
}
