// Assembly steps for published integrations: their current versions loaded into the registry
// before the sandbox starts (so it registers them with the folders), and once the sandbox and the
// installations exist, the publishing service, the swap on announcements and polls, and the probe.

import type { InstallationService } from '../installations/service.ts';
import type { LoadOptions } from '../manifest/load.ts';
import type { IntegrationBundle, LoadedIntegration } from '../manifest/types.ts';
import { createPublishingService } from '../publish/service.ts';
import { createPublishedServing } from '../publish/serving.ts';
import type { Supervisor } from '../sandbox/supervisor.ts';
import { installOneForDevelopment, type DevInstallation } from './dev-installations.ts';
import { createProbe } from './probe.ts';
import type { IntegrationsStep } from './step-sandbox.ts';
import type { StoresStep } from './step-stores.ts';
import type { AssemblyBase } from './step-types.ts';

export type PublishedStep = Awaited<ReturnType<typeof loadPublished>>;

/**
 * Published integrations read none of the host's environment: their variables come from the stored
 * secrets only, so an upload can never name `DATABASE_URL` (or another integration's variable) and read it.
 */
const publishedLoadOptions = (loadOptions: LoadOptions): LoadOptions => ({ ...loadOptions, env: {} });

/** Late parts: the sandbox and the dev installations exist only after this step. */
interface Late {
  sandbox?: Supervisor;
  installations?: InstallationService;
  devInstallations?: DevInstallation[];
}

export async function loadPublished(
  { options, log, platform, onFailure }: AssemblyBase,
  { stores }: StoresStep,
  { registry, loadOptions }: IntegrationsStep,
) {
  const late: Late = {};
  const serving = createPublishedServing({
    versions: stores.versions,
    registry,
    sandbox: { register: (name: string, bundle: IntegrationBundle) => late.sandbox?.register(name, bundle) },
    loadOptions: publishedLoadOptions(loadOptions),
    publishedOverDir: options.publishedOverDir,
    pollMs: options.publishPollMs,
    log,
    async onServing(integration: LoadedIntegration) {
      if (!options.autoInstall || late.installations === undefined) return;
      const made = await installOneForDevelopment(integration, late.installations, stores.installations, platform);
      const list = late.devInstallations;
      if (made !== undefined && list !== undefined && !list.some((entry) => entry.integration === made.integration))
        list.push(made);
    },
  });
  onFailure(() => serving.stop());
  await serving.start();
  return { serving, late };
}

export function wirePublishing(
  { options, log }: AssemblyBase,
  { stores }: StoresStep,
  { registry, loadOptions }: IntegrationsStep,
  { serving, late }: PublishedStep,
  parts: { supervisor: Supervisor; installations: InstallationService; devInstallations: DevInstallation[] },
) {
  late.sandbox = parts.supervisor;
  late.installations = parts.installations;
  late.devInstallations = parts.devInstallations;
  return createPublishingService({
    versions: stores.versions,
    publishers: stores.publishers,
    registry,
    loadOptions: publishedLoadOptions(loadOptions),
    serving,
    publishedOverDir: options.publishedOverDir,
    async claimedElsewhere(integration) {
      if (loadOptions.firstPartyIntegrations?.includes(integration)) return "is one of the platform's own";
      if ((await stores.secrets.list(integration)).length > 0) return 'has stored secrets';
      if ((await stores.installations.listInstallations({ integration, limit: 1 })).length > 0)
        return 'has installations';
      return null;
    },
    probe: createProbe(parts.supervisor),
    now: () => new Date(options.clock()),
    log,
  });
}
