// The dev loop's reload (`npm run dev`): loads every --dir again (unchanged bundles come from the
// cache), swaps what changed into the registry and the sandbox, and keeps the last good build
// serving when the newest files do not load. Says what it did; never prints, never watches.

import type { InstallationService } from '../installations/service.ts';
import type { InstallationStore } from '../installations/model.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import { loadIntegrations, type LoadOptions } from '../manifest/load.ts';
import { displayPath } from '../manifest/format.ts';
import type { LoadedIntegration, ManifestProblem } from '../manifest/types.ts';
import type { PlatformData } from '../platform-data/data.ts';
import type { SandboxBundle } from '../sandbox/supervisor.ts';
import { installOneForDevelopment, type DevInstallation } from './dev-installations.ts';

/**
 * What one reload did to one integration. `warnings` are the loaded files' warnings: all of them
 * when the files did not load (they may explain the errors), else only those not reported before.
 */
export type ReloadChange = {
  warnings: ManifestProblem[];
} /** New code serves new dispatches (in-flight ones finish on the old code). */ & (
  | { integration: string; kind: 'code'; ms: number; hash: string }
  /** The code is the same; `changed` says what else did (manifest keys, secret values, warnings). */
  | { integration: string; kind: 'manifest'; ms: number; changed: string[] }
  /** The files are back to what serves (after a failed reload): nothing changed in effect. */
  | { integration: string; kind: 'unchanged'; ms: number }
  /** The newest files do not load; the last good build keeps serving. */
  | { integration: string; kind: 'failed'; ms: number; problems: ManifestProblem[] }
  /** Not serving: invalid, and no earlier build to fall back on. */
  | { integration: string; kind: 'invalid'; ms: number; problems: ManifestProblem[] }
  /** A folder that was not loaded before. */
  | { integration: string; kind: 'added'; ms: number; installation?: DevInstallation }
);

export interface ReloadDeps {
  dirs: string[];
  loadOptions: LoadOptions;
  registry: IntegrationRegistry;
  sandbox: { register(integration: string, bundle: SandboxBundle): void };
  autoInstall: boolean;
  installations: InstallationService;
  store: InstallationStore;
  platform: PlatformData;
  /** The host's list of dev installations; reloads append the ones they make. */
  devInstallations: DevInstallation[];
}

/** Everything a reload compares: a difference in any of it means the integration changed. */
function fingerprint(integration: LoadedIntegration): string {
  const { status, manifest, secrets, errors, warnings, bundle } = integration;
  return JSON.stringify([status, manifest, secrets, errors, warnings, bundle?.hash ?? null]);
}

function sameProblems(a: ManifestProblem[] | undefined, b: ManifestProblem[]): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b);
}

/**
 * What differs between two loads of the same code, in words: `manifest summary, scopes`, `secret
 * values` (never which value), `warnings`, `status`. Empty when nothing does.
 */
export function describeDifference(current: LoadedIntegration, next: LoadedIntegration): string[] {
  const differs = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);
  const before = (current.manifest ?? {}) as Record<string, unknown>;
  const after = (next.manifest ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) =>
    differs(before[key], after[key]),
  );
  return [
    ...(keys.length > 0 ? [`manifest ${keys.join(', ')}`] : []),
    ...(differs(current.secrets, next.secrets) ? ['secret values'] : []),
    ...(differs(current.warnings, next.warnings) ? ['warnings'] : []),
    ...(current.status !== next.status ? ['status'] : []),
  ];
}

/** The warnings of `next` that `current` did not have (each is said once, when it appears). */
function newWarnings(current: LoadedIntegration | undefined, next: LoadedIntegration): ManifestProblem[] {
  const before = new Set((current?.warnings ?? []).map((warning) => JSON.stringify(warning)));
  return next.warnings.filter((warning) => !before.has(JSON.stringify(warning)));
}

export function createReloader(deps: ReloadDeps): { reload(): Promise<ReloadChange[]> } {
  const serving = (
    integration: LoadedIntegration | undefined,
  ): integration is LoadedIntegration & { bundle: NonNullable<LoadedIntegration['bundle']> } =>
    integration !== undefined && integration.status === 'ready' && integration.bundle !== undefined;

  const install = async (integration: LoadedIntegration): Promise<DevInstallation | undefined> => {
    if (!deps.autoInstall) return undefined;
    const made = await installOneForDevelopment(integration, deps.installations, deps.store, deps.platform);
    if (made !== undefined && !deps.devInstallations.some((entry) => entry.integration === made.integration))
      deps.devInstallations.push(made);
    return made;
  };

  return {
    async reload() {
      const started = performance.now();
      const fresh = await loadIntegrations(deps.dirs, deps.loadOptions);
      const ms = Math.round(performance.now() - started);
      const changes: ReloadChange[] = [];
      const seen = new Set<string>();
      for (const next of fresh) {
        seen.add(next.name);
        // A folder declaring a built-in's name is invalid (no manifest name holds a colon): reported at startup, never
        // served.
        if (deps.registry.get(next.name)?.builtin !== undefined) continue;
        const current = deps.registry.get(next.name);
        // Served from the store on this host (--published-over-dir): the folder waits (publish/serving.ts).
        if (current?.published !== undefined) continue;
        if (current === undefined) {
          deps.registry.set(next);
          if (serving(next)) deps.sandbox.register(next.name, next.bundle);
          const installation = await install(next);
          changes.push(
            next.status === 'ready'
              ? {
                  integration: next.name,
                  kind: 'added',
                  ms,
                  warnings: next.warnings,
                  ...(installation ? { installation } : {}),
                }
              : { integration: next.name, kind: 'invalid', ms, problems: next.errors, warnings: next.warnings },
          );
          continue;
        }
        if (next.status === 'invalid') {
          if (serving(current)) {
            // Keep the build that works; show both what serves and what failed.
            if (sameProblems(current.reloadErrors, next.errors)) continue;
            deps.registry.set({ ...current, reloadErrors: next.errors });
            changes.push({
              integration: next.name,
              kind: 'failed',
              ms,
              problems: next.errors,
              warnings: next.warnings,
            });
          } else if (fingerprint(current) !== fingerprint(next)) {
            deps.registry.set(next);
            changes.push({
              integration: next.name,
              kind: 'invalid',
              ms,
              problems: next.errors,
              warnings: next.warnings,
            });
          }
          continue;
        }
        if (fingerprint(current) === fingerprint(next)) {
          if (current.reloadErrors === undefined) continue;
          // Edited, broken, then put back: what serves is what the files say again.
          deps.registry.set(next);
          changes.push({ integration: next.name, kind: 'unchanged', ms, warnings: [] });
          continue;
        }
        deps.registry.set(next);
        const newCode = serving(next) && (!serving(current) || current.bundle.hash !== next.bundle.hash);
        if (newCode) deps.sandbox.register(next.name, next.bundle);
        if (!serving(current)) await install(next);
        const warnings = newWarnings(current, next);
        changes.push(
          newCode
            ? { integration: next.name, kind: 'code', ms, hash: next.bundle!.hash, warnings }
            : { integration: next.name, kind: 'manifest', ms, changed: describeDifference(current, next), warnings },
        );
      }
      // Integrations whose folder no longer holds their manifest (deleted, moved, renamed).
      for (const current of deps.registry.list()) {
        if (current.builtin !== undefined || current.published !== undefined || seen.has(current.name)) continue;
        if (!serving(current)) {
          deps.registry.remove(current.name);
          continue;
        }
        const gone: ManifestProblem[] = [
          {
            file: displayPath(current.manifestPath),
            pointer: '',
            message:
              'no --dir folder holds this integration any more (its folder or manifest was removed, moved or renamed)',
          },
        ];
        if (sameProblems(current.reloadErrors, gone)) continue;
        deps.registry.set({ ...current, reloadErrors: gone });
        changes.push({ integration: current.name, kind: 'failed', ms, problems: gone, warnings: [] });
      }
      return changes;
    },
  };
}
