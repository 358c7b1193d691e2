// The installation operations the host offers: create, read (record and public JSON), uninstall,
// configuration edits, completions and install links. Never takes secrets, tokens or scopes from
// a request: visibility, status and tokens come from the manifest and the host's own records.

import { HostError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { PlatformData } from '../platform-data/data.ts';
import { completionUrlOf, readCompletionAnswer, type CompletionItem } from './completions.ts';
import type { ConnectTickets } from './connect-ticket.ts';
import type { InstallationLifecycle } from './lifecycle.ts';
import { listInstallationPage, type InstallationPage, type InstallationQuery } from './listing.ts';
import type { CreateInstallationInput, Installation, InstallationStore, InstallationView, RunEvent } from './model.ts';
import { planInstallation } from './plan.ts';
import { deriveInstallationToken, deriveInstallLink, hashToken } from './tokens.ts';
import { viewInstallation } from './view.ts';

export interface InstallationService {
  /**
   * Rejects with ERR_INTEGRATION_NOT_FOUND, ERR_INTEGRATION_INVALID, ERR_VALIDATION, ERR_VISIBILITY_DENIED,
   * ERR_NOT_FOUND.
   */
  create(integration: string, input: CreateInstallationInput): Promise<InstallationView & Record<string, unknown>>;
  /** Rejects with ERR_INSTALLATION_NOT_FOUND. */
  require(id: string): Promise<Installation>;
  view(installation: Installation): InstallationView;
  /** One page of installations in creation order. Rejects with ERR_VALIDATION (cursor). */
  list(query: InstallationQuery): Promise<InstallationPage>;
  delete(id: string): Promise<void>;
  updateConfiguration(id: string, patch: Record<string, unknown>): Promise<InstallationView>;
  completeProperty(id: string, property: string): Promise<{ items: CompletionItem[] }>;
  installLinkOf(integration: string): string | undefined;
}

export interface InstallationServiceDeps {
  registry: IntegrationRegistry;
  store: InstallationStore;
  platform: PlatformData;
  lifecycle: InstallationLifecycle;
  run: RunEvent;
  tokenSecret: string;
  /** Button URLs carry a ticket minted here (connect-ticket.ts). */
  connectTickets: ConnectTickets;
  baseUrl: string;
  log: Logger;
}

export function createInstallationService(deps: InstallationServiceDeps): InstallationService {
  const require = async (id: string): Promise<Installation> => {
    const installation = await deps.store.getInstallation(id);
    if (installation === undefined) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" not found`);
    return installation;
  };
  const view = (installation: Installation): InstallationView =>
    viewInstallation(deps.baseUrl, deps.registry.get(installation.integration), installation, deps.connectTickets.mint);

  return {
    require,
    view,
    list: (query) => listInstallationPage(deps.store, deps.platform, view, query),

    async create(name, input) {
      const integration = deps.registry.require(name);
      const planned = planInstallation(deps.platform, integration, input, deriveInstallLink(deps.tokenSecret, name));
      const tokenHashOf = (id: string) => hashToken(deriveInstallationToken(deps.tokenSecret, id));
      let installation = planned.installation;
      // The setup events are owed in the insert's own transaction: written with the installation, or not at all.
      if (planned.parent === undefined) {
        await deps.store.insertInstallation(
          installation,
          tokenHashOf(installation.id),
          deps.lifecycle.installEvents(installation),
        );
      } else {
        // A space or site installation lives under its organization's installation, made here if needed.
        const placed = await deps.store.insertChildInstallation(
          installation,
          tokenHashOf(installation.id),
          planned.parent,
          tokenHashOf(planned.parent.id),
          ({ child, parent, parentCreated }) => [
            ...(parentCreated ? deps.lifecycle.installEvents(parent) : []),
            ...deps.lifecycle.installEvents(child),
          ],
        );
        installation = placed.child;
        if (placed.parentCreated) {
          deps.log.info(
            `installed ${name} as ${placed.parent.id} (organization ` +
              `in ${placed.parent.organization}, ${placed.parent.status}) for its ${installation.target} ` +
              `installation`,
          );
        }
      }
      deps.log.info(
        `installed ${name} as ${installation.id} (${installation.target} ` +
          `in ${installation.organization}${installation.parent ? ` under ${installation.parent}` : ''}, ` +
          `${installation.status})`,
      );
      deps.lifecycle.announce();
      // Built-ins may hand out something exactly once (the webhook's signing secret).
      const once = (await integration.builtin?.onInstall?.(installation.id)) ?? {};
      return { ...view(installation), ...once };
    },

    delete: (id) => deps.lifecycle.uninstall(id),

    updateConfiguration: async (id, patch) => view(await deps.lifecycle.editConfiguration(id, patch, 'admin')),

    async completeProperty(id, property) {
      const installation = await require(id);
      const integration = deps.registry.require(installation.integration);
      const path = completionUrlOf(integration, installation, property);
      // Exactly what a browser GET on the public endpoint would produce, so the integration's
      // ordinary fetch handler serves it.
      const url = `${view(installation).urls.publicEndpoint}${path}`;
      const event = {
        type: 'fetch',
        request: { method: 'GET', url, headers: [['accept', 'application/json']] as [string, string][] },
      };
      const outcome = await deps.run(installation, event, null);
      return { items: readCompletionAnswer(outcome.response, path) };
    },

    installLinkOf(name) {
      const integration = deps.registry.get(name);
      return integration?.manifest?.visibility === 'unlisted' ? deriveInstallLink(deps.tokenSecret, name) : undefined;
    },
  };
}
