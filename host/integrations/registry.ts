// The set of integrations this host serves: those loaded from the fixtures folders plus the
// built-ins, looked up by name through a Map (names come from URLs). Holds no behaviour of its own.

import { HostError } from '../common/errors.ts';
import type { LoadedIntegration } from '../manifest/types.ts';

export interface IntegrationRegistry {
  list(): LoadedIntegration[];
  get(name: string): LoadedIntegration | undefined;
  /** Throws ERR_INTEGRATION_NOT_FOUND. */
  require(name: string): LoadedIntegration;
}

export function createIntegrationRegistry(integrations: LoadedIntegration[]): IntegrationRegistry {
  const byName = new Map(integrations.map((integration) => [integration.name, integration]));
  return {
    list: () => integrations,
    get: (name) => byName.get(name),
    require(name) {
      const integration = byName.get(name);
      if (integration === undefined) throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${name}" not found`);
      return integration;
    },
  };
}
