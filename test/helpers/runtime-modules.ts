// The lazily loaded runtime modules as a worker holds them (realm-primitives.ts), for tests and
// benches that build a RuntimeSource themselves instead of starting a worker.
import { buildRuntimeModules } from '../../sandbox-api/runtime/build.ts';
import { moduleSources, type RuntimeModuleSources } from '../../host/sandbox/realm-primitives.ts';

/** A fresh set per call: each keeps the code caches its own isolates make. */
export async function runtimeModules(): Promise<RuntimeModuleSources> {
  return moduleSources(await buildRuntimeModules());
}
