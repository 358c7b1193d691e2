// The installation hierarchy for stores written before it existed: every space or site installation
// of a loaded, non-built-in integration gets the organization installation it belongs to (the
// earliest of its integration in its organization, or a new one). Idempotent; runs at startup.
// Never changes an installation's id, token, configuration or status.

import type { Logger } from '../common/logger.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import { hashToken, deriveInstallationToken } from './tokens.ts';
import type { Installation, InstallationStore } from './model.ts';
import { planOrganizationParent } from './plan.ts';

export interface AdoptionDeps {
  store: InstallationStore;
  registry: IntegrationRegistry;
  tokenSecret: string;
  log: Logger;
}

/**
 * Links parentless space and site installations to their organization installation; returns the organization
 * installations it created.
 */
export async function adoptOrphanInstallations(deps: AdoptionDeps): Promise<Installation[]> {
  const created: Installation[] = [];
  for (const installation of await deps.store.listInstallations()) {
    if (installation.target === 'organization' || installation.parent !== undefined) continue;
    // Its integration decides the new parent's configuration schema; one that is not loaded now
    // is adopted at the first start that loads it. Built-ins have no organization level.
    const integration = deps.registry.get(installation.integration);
    if (integration === undefined || integration.status !== 'ready' || integration.builtin !== undefined) continue;
    const candidate = planOrganizationParent(integration, installation);
    const placed = await deps.store.adoptChildInstallation(
      installation.id,
      candidate,
      hashToken(deriveInstallationToken(deps.tokenSecret, candidate.id)),
    );
    if (placed === undefined) continue;
    if (placed.parentCreated) created.push(placed.parent);
    deps.log.info(
      `placed ${installation.target} installation ${installation.id} of ${installation.integration} under ` +
        `organization installation ${placed.parent.id}${placed.parentCreated ? ' (created)' : ''}`,
    );
  }
  return created;
}
