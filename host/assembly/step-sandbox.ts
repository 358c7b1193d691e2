// Assembly steps 3 and 4: the integrations (loaded from --dir, plus the built-ins) and the sandbox
// that runs them, started with every ready bundle registered. Never runs guest code in this process.

import type { HostServices } from '../server/services.ts';
import { createIntegrationRegistry } from '../integrations/registry.ts';
import { loadIntegrations } from '../manifest/load.ts';
import { maskerOf } from '../dispatch/masked-log.ts';
import { Supervisor } from '../sandbox/supervisor.ts';
import { createWebhookIntegration } from '../webhooks/builtin.ts';
import {
  buildRuntimeModules,
  buildRuntimeScript,
  buildRuntimeMaps,
  buildSnapshotScript,
} from '../../sandbox-api/runtime/build.ts';
import type { Listeners } from './step-listeners.ts';
import type { StoresStep } from './step-stores.ts';
import type { AssemblyBase } from './step-types.ts';

export type IntegrationsStep = Awaited<ReturnType<typeof loadRegistry>>;

export async function loadRegistry(
  { options, platform }: AssemblyBase,
  { hostPorts }: Listeners,
  { stores, secretSnapshot }: StoresStep,
) {
  const loadOptions = {
    env: options.env,
    firstPartyOrganizations: platform.firstPartyOrganizations,
    firstPartyIntegrations: [...platform.firstPartyIntegrations, ...options.firstPartyIntegrations],
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
    devVars: options.devVars,
    mode: options.bundleMode,
    storedSecrets: (integration: string) => secretSnapshot.current.byIntegration.get(integration),
  };
  const loaded = await loadIntegrations(options.dirs, loadOptions);
  // The built-ins, whose `host:` names no manifest can declare.
  const builtins = [createWebhookIntegration(stores.signingSecrets, { allow: options.allowEgress, hostPorts })];
  const registry = createIntegrationRegistry([...loaded, ...builtins]);
  // An integration that prints one of its secrets leaves `***` in the host log and the event log.
  const secretMask = maskerOf((name) => registry.get(name));
  return { loadOptions, registry, secretMask };
}

/** `mask` hides the integration's secret values in the line (dispatch/masked-log.ts). */
function logIntegrationLine(log: HostServices['log'], mask: (integration: string) => (text: string) => string) {
  return (line: { integration: string; eventIds: string[]; level: string; text: string }) => {
    const prefix = `[${line.integration}${line.eventIds.length ? ` ${line.eventIds.join(',')}` : ''}]`;
    const method = line.level === 'error' ? 'error' : line.level === 'warn' ? 'warn' : 'info';
    log[method](`${prefix} ${line.level}: ${mask(line.integration)(line.text)}`);
  };
}

export async function startSandbox(
  { options, log, metrics, onFailure }: AssemblyBase,
  { hostPorts, baseUrl }: Listeners,
  { registry, secretMask }: IntegrationsStep,
): Promise<Supervisor> {
  const supervisor = new Supervisor({
    workers: options.workers,
    limits: options.limits,
    isolateMemoryMb: options.limits.isolateMemoryMb,
    egress: {
      allow: options.allowEgress,
      hostPorts,
      ...(options.testHooks.egressResolve ? { resolve: options.testHooks.egressResolve } : {}),
    },
    runtimeScript: await buildRuntimeScript(),
    snapshotScript: await buildSnapshotScript(),
    runtimeModules: await buildRuntimeModules(),
    runtimeMaps: await buildRuntimeMaps(),
    crashesBeforeQuarantine: options.limits.crashesBeforeQuarantine,
    crashWindowMs: options.limits.crashWindowMs,
    timeoutBreaker: {
      limit: options.limits.timeoutsBeforeCooldown,
      windowMs: options.limits.timeoutWindowMs,
      cooldownMs: options.limits.timeoutCooldownMs,
    },
    demoteOffenders: options.demoteOffenders,
    ...(options.testHooks.schedIdleCommand ? { schedIdleCommand: options.testHooks.schedIdleCommand } : {}),
    offenderCpuQuota: {
      percent: options.offenderCpuQuotaPercent,
      ...(options.testHooks.cpuCgroupMount ? { mount: options.testHooks.cpuCgroupMount } : {}),
    },
    ...(options.testHooks.machineSaturated ? { machineSaturated: options.testHooks.machineSaturated } : {}),
    ...(options.testHooks.schedIdleStarved ? { schedIdleStarved: options.testHooks.schedIdleStarved } : {}),
    solitary: { maxWorkers: options.limits.maxSolitaryWorkers, probationMs: options.limits.solitaryProbationMs },
    onLog: logIntegrationLine(log, secretMask),
    onNotice: (level, message) => log[level](message),
    onCount: (name, integration) => metrics.counted(name, integration),
    ...(options.testHooks.onEgressConnect ? { onEgressConnect: options.testHooks.onEgressConnect } : {}),
  });
  onFailure(() => supervisor.stop());
  await supervisor.start();
  for (const integration of registry.list()) {
    if (integration.status === 'ready' && integration.bundle) supervisor.register(integration.name, integration.bundle);
  }
  supervisor.configure(baseUrl);
  return supervisor;
}
