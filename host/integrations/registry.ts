// The set of integrations this host serves: those loaded from the fixtures folders plus the
// built-ins, looked up by name through a Map (names come from URLs). The dev loop replaces an
// entry with a new object when its files change; nothing here decides whether it should.

import { HostError } from '../common/errors.ts';
import type { LoadedIntegration } from '../manifest/types.ts';

export interface IntegrationRegistry {
  /** Every integration, in load order (a name held by a built-in and a fixture lists both). */
  list(): LoadedIntegration[];
  get(name: string): LoadedIntegration | undefined;
  /** Throws ERR_INTEGRATION_NOT_FOUND. */
  require(name: string): LoadedIntegration;
  /** Adds an integration, or replaces the one of that name in place (a reload). */
  set(integration: LoadedIntegration): void;
  /** Forgets an integration that is no longer loaded (its installations stay in the store). */
  remove(name: string): void;
}

export function createIntegrationRegistry(initial: LoadedIntegration[]): IntegrationRegistry {
  let integrations = [...initial];
  const byName = new Map(integrations.map((integration) => [integration.name, integration]));
  return {
    list: () => integrations,
    get: (name) => byName.get(name),
    require(name) {
      const integration = byName.get(name);
      if (integration === undefined) throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${name}" not found`);
      return integration;
    },
    set(integration) {
      const current = byName.get(integration.name);
      byName.set(integration.name, integration);
      // A new array each time: a caller iterating the previous list keeps a consistent view.
      integrations = current === undefined ? [...integrations, integration] : integrations.map((entry) => (entry === current ? integration : entry));
    },
    remove(name) {
      const current = byName.get(name);
      if (current === undefined) return;
      byName.delete(name);
      integrations = integrations.filter((entry) => entry !== current);
    },
  };
}
