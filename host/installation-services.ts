// The HostServices methods of the installation lifecycle after creation: uninstall, configuration
// edits, completions, install links and the event log. host-services.ts spreads them into the
// real HostServices; like it, they never take secrets, tokens or scopes from a request.

import { HostError } from './errors.ts';
import type { LoadedIntegration } from './manifest/types.ts';
import type { HostServices, Installation, InstallationView } from './services.ts';
import { completionUrlOf, readCompletionAnswer } from './platform/completions.ts';
import type { EventLog } from './platform/event-log-store.ts';
import type { InstallationLifecycle } from './platform/lifecycle.ts';
import { deriveInstallLink } from './platform/tokens.ts';

type InstallationServices = Pick<HostServices, 'deleteInstallation' | 'updateConfiguration' | 'completeProperty' | 'installLinkOf' | 'listEvents' | 'getEvent'>;

export interface InstallationServicesDeps {
  lifecycle: InstallationLifecycle;
  eventLog: EventLog;
  tokenSecret: string;
  getIntegration(name: string): LoadedIntegration | undefined;
  requireInstallation(id: string): Installation;
  view(installation: Installation): InstallationView;
  dispatch: HostServices['dispatch'];
}

export function createInstallationServices(deps: InstallationServicesDeps): InstallationServices {
  const requireIntegration = (name: string): LoadedIntegration => {
    const integration = deps.getIntegration(name);
    if (integration === undefined) throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${name}" not found`);
    return integration;
  };

  return {
    deleteInstallation: (id) => deps.lifecycle.uninstall(id),

    updateConfiguration: (id, patch) => deps.view(deps.lifecycle.editConfiguration(id, patch, 'admin')),

    async completeProperty(id, property) {
      const installation = deps.requireInstallation(id);
      const integration = requireIntegration(installation.integration);
      const path = completionUrlOf(integration, installation, property);
      // Exactly what a browser GET on the public endpoint would produce, so the integration's
      // ordinary fetch handler serves it.
      const url = `${deps.view(installation).urls.publicEndpoint}${path}`;
      const event = { type: 'fetch', installationId: installation.id, request: { method: 'GET', url, headers: [['accept', 'application/json']] as [string, string][] } };
      const outcome = await deps.dispatch(installation.id, event, null);
      return { items: readCompletionAnswer(outcome.response, path) };
    },

    installLinkOf(name) {
      const integration = deps.getIntegration(name);
      return integration?.manifest?.visibility === 'unlisted' ? deriveInstallLink(deps.tokenSecret, name) : undefined;
    },

    listEvents(name, page) {
      requireIntegration(name);
      return deps.eventLog.list(name, page);
    },

    getEvent(name, eventId) {
      requireIntegration(name);
      const entry = deps.eventLog.get(name, eventId);
      if (entry === undefined) throw new HostError('ERR_NOT_FOUND', `integration "${name}" has no event "${eventId}" in its log`);
      return entry;
    },
  };
}
