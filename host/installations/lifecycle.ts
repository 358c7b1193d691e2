// The installation lifecycle after creation (docs/installations.md): configuration edits (stored, then announced
// with installation_setup), the setup events of a new installation, and uninstall. The one place
// both the admin PATCH and the integration's own PATCH go through; it never runs guest code itself.

import { HostError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { Installation, InstallationPatch, InstallationStore, RunEvent } from './model.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { planConfigurationEdit, type EditOptions, type EditSource } from './configuration.ts';

export interface LifecycleDeps {
  store: InstallationStore;
  registry: IntegrationRegistry;
  run: RunEvent;
  log: Logger;
  /** The time of an edit (updatedAt). */
  now(): number;
}

export interface InstallationLifecycle {
  /** installation_setup for a new installation, and space_installation_setup / site_installation_setup when it is a space's or a site's. */
  announceInstall(installation: Installation): void;
  /** Merges, validates (422 ERR_CONFIGURATION_INVALID, nothing stored), stores, then emits installation_setup. */
  editConfiguration(installationId: string, patch: Record<string, unknown>, source: EditSource, options?: EditOptions): Promise<Installation>;
  /**
   * The integration's own edit through GitBook's API: the whole new configuration (when given) and
   * its external ids (when given), validated and stored in one transaction; setup events follow a
   * configuration change.
   */
  editFromIntegration(installationId: string, edit: { configuration?: Record<string, unknown>; externalIds?: string[] }): Promise<Installation>;
  /** Removes the installation and its token (a later API call with it gets 401). */
  uninstall(installationId: string): Promise<void>;
}

/** space_installation_setup or site_installation_setup for a space or site installation (GitBook's events for them). */
function contentSetupEvent(installation: Installation, previous?: { status: string; configuration: Record<string, unknown> }): (Record<string, unknown> & { type: string }) | undefined {
  const tail = previous === undefined ? {} : { previous };
  if (installation.target === 'space' && installation.space !== undefined) return { type: 'space_installation_setup', status: installation.status, spaceId: installation.space, ...tail };
  if (installation.target === 'site' && installation.site !== undefined) return { type: 'site_installation_setup', status: installation.status, siteId: installation.site, ...tail };
  return undefined;
}

export function createLifecycle(deps: LifecycleDeps): InstallationLifecycle {
  // Setup events of one installation leave in the order they happened, but never hold up the
  // caller: the OAuth callback that stored credentials must not wait for the integration's handler.
  const tails = new Map<string, Promise<void>>();
  const emit = (installation: Installation, event: Record<string, unknown> & { type: string }): void => {
    if (deps.registry.get(installation.integration)?.bundle === undefined) return;
    const previous = tails.get(installation.id) ?? Promise.resolve();
    const tail = previous.then(async () => {
      try {
        // The record as stored when the event leaves (a later edit may have replaced it); an
        // installation removed meanwhile gets nothing.
        const current = await deps.store.getInstallation(installation.id);
        if (current === undefined) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${installation.id}" not found`);
        await deps.run(current, event, null);
      } catch (error) {
        deps.log.warn(`${event.type} for ${installation.id} failed: ${(error as Error).message}`);
      }
    });
    tails.set(installation.id, tail);
    void tail.then(() => tails.get(installation.id) === tail && tails.delete(installation.id));
  };

  const notFound = (id: string): HostError => new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" not found`);

  /** One edit: planned inside the store's transaction, logged, then announced (unless nothing of the configuration changed hands). */
  const edit = async (installationId: string, source: EditSource, plan: (installation: Installation, integration: LoadedIntegration) => InstallationPatch, announce = true): Promise<Installation> => {
    // The store runs the plan inside its transaction: two edits can never interleave, even on
    // two hosts, and a refused edit (the plan throws) stores nothing.
    const result = await deps.store.editInstallation(installationId, (installation) => {
      const integration = deps.registry.get(installation.integration);
      if (integration === undefined || integration.status !== 'ready') {
        throw new HostError('ERR_INTEGRATION_INVALID', `integration "${installation.integration}" is not loaded; its configuration cannot change`);
      }
      return { ...plan(installation, integration), updatedAt: new Date(deps.now()).toISOString() };
    });
    if (result === undefined) throw notFound(installationId);
    const { before, after } = result;
    deps.log.info(`configured ${before.id} (${source}): ${before.status} → ${after.status}`);
    if (!announce) return after;
    const previous = { status: before.status, configuration: before.configuration };
    emit(after, { type: 'installation_setup', status: after.status, previous });
    // GitBook announces a space or site installation's new configuration with its own event too.
    const content = contentSetupEvent(after, previous);
    if (content !== undefined) emit(after, content);
    return after;
  };

  return {
    announceInstall(installation) {
      emit(installation, { type: 'installation_setup', status: installation.status });
      const content = contentSetupEvent(installation);
      if (content !== undefined) emit(installation, content);
    },

    async editConfiguration(installationId, patch, source, options = {}) {
      return edit(installationId, source, (installation, integration) => planConfigurationEdit(integration, installation, patch, source, options));
    },

    async editFromIntegration(installationId, change) {
      const { configuration, externalIds } = change;
      return edit(installationId, 'integration', (installation, integration) => ({
        ...(configuration !== undefined ? planConfigurationEdit(integration, installation, configuration, 'integration', { replace: true, keepUndeclared: true }) : { status: installation.status, configuration: installation.configuration }),
        ...(externalIds !== undefined ? { externalIds } : {}),
      }), configuration !== undefined);
    },

    async uninstall(installationId) {
      const installation = await deps.store.deleteInstallation(installationId);
      if (installation === undefined) throw notFound(installationId);
      await deps.registry.get(installation.integration)?.builtin?.onUninstall?.(installation.id);
      deps.log.info(`uninstalled ${installation.integration} installation ${installation.id}; its token is revoked`);
    },
  };
}
