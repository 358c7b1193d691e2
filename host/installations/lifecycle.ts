// The installation lifecycle after creation (docs/installations.md): configuration edits (stored
// with the installation_setup they owe), the setup events a new installation is owed, and
// uninstall. The one place both the admin PATCH and the integration's own PATCH go through; it
// never runs guest code itself (owed-events/runner.ts delivers what is owed).

import { HostError } from '../common/errors.ts';
import { currentRequestId } from '../common/request-context.ts';
import type { Logger } from '../common/logger.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { Installation, InstallationPatch, InstallationStore } from './model.ts';
import type { NewOwedEvent } from '../owed-events/model.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { planConfigurationEdit, type EditOptions, type EditSource } from './configuration.ts';

export interface LifecycleDeps {
  store: InstallationStore;
  registry: IntegrationRegistry;
  log: Logger;
  /** The time of an edit (updatedAt) and of the events it owes. */
  now(): number;
  /** A fresh event id: an owed event keeps it through every attempt. */
  newEventId(): string;
  /** Owed events were written: deliver them (owed-events/runner.ts). */
  deliver(): void;
}

export interface InstallationLifecycle {
  /**
   * The events a new installation is owed, to write in its insert's transaction: installation_setup,
   * and space_installation_setup / site_installation_setup when it is a space's or a site's.
   */
  installEvents(installation: Installation): NewOwedEvent[];
  /** Owed events were written (an install): deliver them now. */
  announce(): void;
  /**
   * Merges, validates (422 ERR_CONFIGURATION_INVALID, nothing stored), stores with the installation_setup it owes,
   * then delivers it.
   */
  editConfiguration(
    installationId: string,
    patch: Record<string, unknown>,
    source: EditSource,
    options?: EditOptions,
  ): Promise<Installation>;
  /**
   * The integration's own edit through GitBook's API: the whole new configuration (when given) and
   * its external ids (when given), validated and stored in one transaction; setup events follow a
   * configuration change.
   */
  editFromIntegration(
    installationId: string,
    edit: { configuration?: Record<string, unknown>; externalIds?: string[] },
  ): Promise<Installation>;
  /** Removes the installation and its token (a later API call with it gets 401), and the events still owed to it. */
  uninstall(installationId: string): Promise<void>;
}

type SetupEvent = Record<string, unknown> & { type: string };

/** space_installation_setup or site_installation_setup for a space or site installation (GitBook's events for them). */
function contentSetupEvent(
  installation: Installation,
  previous?: { status: string; configuration: Record<string, unknown> },
): SetupEvent | undefined {
  const tail = previous === undefined ? {} : { previous };
  if (installation.target === 'space' && installation.space !== undefined)
    return { type: 'space_installation_setup', status: installation.status, spaceId: installation.space, ...tail };
  if (installation.target === 'site' && installation.site !== undefined)
    return { type: 'site_installation_setup', status: installation.status, siteId: installation.site, ...tail };
  return undefined;
}

/**
 * The setup events of an installation as it is now (after an install, or an edit from `previous`), in the order they
 * leave.
 */
function setupEventsOf(
  installation: Installation,
  previous?: { status: string; configuration: Record<string, unknown> },
): SetupEvent[] {
  const content = contentSetupEvent(installation, previous);
  return [
    { type: 'installation_setup', status: installation.status, ...(previous !== undefined ? { previous } : {}) },
    ...(content !== undefined ? [content] : []),
  ];
}

export function createLifecycle(deps: LifecycleDeps): InstallationLifecycle {
  // Owed, not sent: the events are rows written with the change (nothing lost if this host dies
  // before they leave); the runner delivers them in order per installation, whichever host is alive.
  const owe = (installation: Installation, events: SetupEvent[]): NewOwedEvent[] => {
    // Built-ins run no guest code: nothing is owed to them.
    if (deps.registry.get(installation.integration)?.bundle === undefined) return [];
    const createdAt = deps.now();
    // The request that made the change: its id follows the events into the event log, whenever they leave.
    const requestId = currentRequestId();
    return events.map((event) => ({
      id: deps.newEventId(),
      installationId: installation.id,
      integration: installation.integration,
      event,
      ...(requestId !== undefined ? { requestId } : {}),
      createdAt,
    }));
  };

  const notFound = (id: string): HostError =>
    new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" not found`);

  /**
   * One edit: planned inside the store's transaction, logged, then announced (unless nothing of the configuration
   * changed hands).
   */
  const edit = async (
    installationId: string,
    source: EditSource,
    plan: (installation: Installation, integration: LoadedIntegration) => InstallationPatch,
    announce = true,
  ): Promise<Installation> => {
    // The store runs the plan inside its transaction: two edits can never interleave, even on
    // two hosts, and a refused edit (the plan throws) stores nothing.
    const result = await deps.store.editInstallation(
      installationId,
      (installation) => {
        const integration = deps.registry.get(installation.integration);
        if (integration === undefined || integration.status !== 'ready') {
          throw new HostError(
            'ERR_INTEGRATION_INVALID',
            `integration "${installation.integration}" is not loaded; its configuration cannot change`,
          );
        }
        return { ...plan(installation, integration), updatedAt: new Date(deps.now()).toISOString() };
      },
      // GitBook announces a space or site installation's new configuration with its own event too.
      ({ before, after }) =>
        announce
          ? owe(after, setupEventsOf(after, { status: before.status, configuration: before.configuration }))
          : [],
    );
    if (result === undefined) throw notFound(installationId);
    const { before, after } = result;
    deps.log.info(`configured ${before.id} (${source}): ${before.status} → ${after.status}`);
    if (announce) deps.deliver();
    return after;
  };

  return {
    installEvents: (installation) => owe(installation, setupEventsOf(installation)),
    announce: () => deps.deliver(),

    async editConfiguration(installationId, patch, source, options = {}) {
      return edit(installationId, source, (installation, integration) =>
        planConfigurationEdit(integration, installation, patch, source, options),
      );
    },

    async editFromIntegration(installationId, change) {
      const { configuration, externalIds } = change;
      return edit(
        installationId,
        'integration',
        (installation, integration) => ({
          ...(configuration !== undefined
            ? planConfigurationEdit(integration, installation, configuration, 'integration', {
                replace: true,
                keepUndeclared: true,
              })
            : { status: installation.status, configuration: installation.configuration }),
          ...(externalIds !== undefined ? { externalIds } : {}),
        }),
        configuration !== undefined,
      );
    },

    async uninstall(installationId) {
      const installation = await deps.store.deleteInstallation(installationId);
      if (installation === undefined) throw notFound(installationId);
      await deps.registry.get(installation.integration)?.builtin?.onUninstall?.(installation.id);
      deps.log.info(`uninstalled ${installation.integration} installation ${installation.id}; its token is revoked`);
    },
  };
}
