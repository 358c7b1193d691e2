// The development convenience of `npm run host`: each ready integration with no installation yet
// is installed once at organization level in its manifest's organization, so its endpoint works
// at once. Never touches built-ins (their target and configuration are the user's choice).

import type { InstallationView } from '../installations/model.ts';
import type { InstallationService } from '../installations/service.ts';
import type { InstallationStore } from '../installations/model.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import { findOrganization, type PlatformData } from '../platform/data.ts';

export interface DevInstallation {
  integration: string;
  installation?: InstallationView;
  note?: string;
}

export async function installForDevelopment(registry: IntegrationRegistry, installations: InstallationService, store: InstallationStore, platform: PlatformData): Promise<DevInstallation[]> {
  const result: DevInstallation[] = [];
  for (const integration of registry.list()) {
    if (integration.status !== 'ready' || integration.manifest === undefined || integration.builtin !== undefined) continue;
    const existing = (await store.listInstallations({ integration: integration.name }))[0];
    if (existing) {
      result.push({ integration: integration.name, installation: installations.view(existing) });
      continue;
    }
    const organization = findOrganization(platform, integration.manifest.organization);
    if (organization === undefined) {
      result.push({ integration: integration.name, note: `organization "${integration.manifest.organization}" is not in the platform data; not installed` });
      continue;
    }
    result.push({ integration: integration.name, installation: await installations.create(integration.name, { organization: organization.id, target: 'organization' }) });
  }
  return result;
}
