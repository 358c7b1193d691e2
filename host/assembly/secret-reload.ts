// Reloads named integrations after their stored secrets changed: loads them again from their
// folders (the manifest judged against every other, the bundle from the cache) with the newest
// secrets and swaps them in, each into a fresh isolate so no guest keeps an old value in its
// globals. An integration a missing secret made invalid becomes ready, and the reverse.

import type { Logger } from '../common/logger.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import { formatProblem } from '../manifest/format.ts';
import { loadIntegrations, type LoadOptions } from '../manifest/load.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { SandboxBundle } from '../sandbox/supervisor.ts';

export interface SecretReloadDeps {
  dirs: string[];
  loadOptions: LoadOptions;
  registry: IntegrationRegistry;
  sandbox: { register(integration: string, bundle: SandboxBundle): void };
  /** Called when an integration starts serving that did not before (the dev installation). */
  onServing?(integration: LoadedIntegration): Promise<void>;
  log: Logger;
}

const serving = (
  integration: LoadedIntegration | undefined,
): integration is LoadedIntegration & { bundle: NonNullable<LoadedIntegration['bundle']> } =>
  integration !== undefined && integration.status === 'ready' && integration.bundle !== undefined;

export function createSecretReload(deps: SecretReloadDeps): (names: ReadonlySet<string>) => Promise<void> {
  return async (names) => {
    // Only integrations this host serves from its folders: secrets of others wait for them.
    const known = new Set(
      [...names].filter((name) => {
        const current = deps.registry.get(name);
        return current !== undefined && current.builtin === undefined;
      }),
    );
    if (known.size === 0) return;
    const fresh = await loadIntegrations(deps.dirs, deps.loadOptions, known);
    const count = new Map<string, number>();
    for (const next of fresh) count.set(next.name, (count.get(next.name) ?? 0) + 1);
    for (const next of fresh) {
      // Two folders claiming one name are invalid whatever the secrets: the startup entry stays.
      if (count.get(next.name) !== 1) continue;
      const current = deps.registry.get(next.name);
      if (current === undefined || current.builtin !== undefined) continue;
      deps.registry.set(next);
      if (serving(next)) deps.sandbox.register(next.name, next.bundle);
      if (next.status === 'ready') {
        deps.log.info(`secrets: ${next.name} reloaded with its stored secrets; it serves the next request`);
        if (!serving(current) && serving(next)) await deps.onServing?.(next);
      } else {
        deps.log.warn(
          `secrets: ${next.name} reloaded with its stored secrets and is ` +
            `invalid: ${next.errors.map(formatProblem).join('; ')}`,
        );
      }
    }
  };
}
