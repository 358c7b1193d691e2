// The set of integrations this host serves: those loaded from the fixtures folders plus the
// built-ins, looked up by name through a Map (names come from URLs). The dev loop replaces an
// entry with a new object when its files change; nothing here decides whether it should, except
// that a loaded integration never takes the place of a built-in (builtin-names.ts).

import { HostError } from '../common/errors.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { integrationNotFound } from './builtin-names.ts';

export interface IntegrationRegistry {
  /**
   * Every integration, in load order. A folder that declares a built-in's name (invalid: no
   * manifest name may hold a colon) is listed beside the built-in, and `get` answers the built-in.
   */
  list(): LoadedIntegration[];
  get(name: string): LoadedIntegration | undefined;
  /** Throws ERR_INTEGRATION_NOT_FOUND. */
  require(name: string): LoadedIntegration;
  /** Adds an integration, or replaces the one of that name in place (a reload); never a built-in by a loaded one. */
  set(integration: LoadedIntegration): void;
  /** Forgets a loaded integration that is no longer loaded (its installations stay in the store); never a built-in. */
  remove(name: string): void;
}

export function createIntegrationRegistry(initial: LoadedIntegration[]): IntegrationRegistry {
  let integrations = [...initial];
  const byName = new Map<string, LoadedIntegration>();
  for (const integration of integrations) {
    if (byName.get(integration.name)?.builtin === undefined) byName.set(integration.name, integration);
  }
  const isBuiltin = (name: string) => byName.get(name)?.builtin !== undefined;
  return {
    list: () => integrations,
    get: (name) => byName.get(name),
    require(name) {
      const integration = byName.get(name);
      if (integration === undefined) throw integrationNotFound(name, isBuiltin);
      return integration;
    },
    set(integration) {
      const current = byName.get(integration.name);
      if (current?.builtin !== undefined && integration.builtin === undefined) {
        throw new HostError('ERR_INTERNAL', `a loaded integration cannot replace the built-in "${integration.name}"`);
      }
      byName.set(integration.name, integration);
      // A new array each time: a caller iterating the previous list keeps a consistent view.
      integrations =
        current === undefined
          ? [...integrations, integration]
          : integrations.map((entry) => (entry === current ? integration : entry));
    },
    remove(name) {
      // A built-in stays; a loaded folder listed beside it under its name goes.
      if (byName.get(name)?.builtin === undefined) byName.delete(name);
      integrations = integrations.filter((entry) => entry.name !== name || entry.builtin !== undefined);
    },
  };
}
