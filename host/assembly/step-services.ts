// Assembly step 8: what the HTTP layer is handed (HostServices), the stored secrets' refresher,
// and the listeners put to work: the API and the console start answering here.
// Wires and serves; the background work (outbox, tasks, owed events) starts in assemble.ts.

import { createOAuthSeal } from '../oauth-seal/seal.ts';
import { createSealedStates } from '../oauth-seal/sealed-states.ts';
import type { Supervisor } from '../sandbox/supervisor.ts';
import { createRequestListener } from '../server/app.ts';
import { createConsoleApp } from '../server/console/app.ts';
import { createConsoleSessions } from '../server/console/sessions.ts';
import { createSiteScripts } from '../site-scripts/site-scripts.ts';
import { installOneForDevelopment, type DevInstallation } from './dev-installations.ts';
import { createHostServices } from './host-services.ts';
import { createReadiness } from './readiness.ts';
import { createSecretRefresher } from './secret-refresh.ts';
import { createSecretReload } from './secret-reload.ts';
import type { DispatchStep } from './step-dispatch.ts';
import type { Listeners } from './step-listeners.ts';
import type { IntegrationsStep } from './step-sandbox.ts';
import type { StoresStep } from './step-stores.ts';
import type { AssemblyBase } from './step-types.ts';
import type { createPlatformApi } from '../platform-api/router.ts';
import type { WebhooksStep } from './step-webhooks.ts';
import { wirePublishing, type PublishedStep } from './step-publish.ts';

export interface ServicesInput {
  listeners: Listeners;
  stored: StoresStep;
  integrations: IntegrationsStep;
  supervisor: Supervisor;
  dispatch: DispatchStep;
  platformApi: ReturnType<typeof createPlatformApi>;
  webhookParts: WebhooksStep;
  /** Read by /ready: true once a shutdown began. */
  lifecycleState: { shuttingDown: boolean };
  published: PublishedStep;
}

export async function serveServices(
  { options, log, metrics, platform, onFailure }: AssemblyBase,
  input: ServicesInput,
) {
  const {
    listeners: { http, consoleHttp, consoleAssets, baseUrl },
    stored: { stores, secretService, secretSnapshot, adminToken, tokenSecret },
    integrations: { registry, loadOptions },
    supervisor,
    lifecycleState,
  } = input;
  const { feed, eventLog, dispatcher, installations, connectTickets } = input.dispatch;
  const { webhooks, publish } = input.webhookParts;
  const platformApi = input.platformApi;
  // Filled once the host is up (dev installations); a secret that makes an integration ready later adds its own.
  const devInstallations: DevInstallation[] = [];
  const publishing = wirePublishing(
    { options, log, metrics, platform, onFailure },
    input.stored,
    input.integrations,
    input.published,
    { supervisor, installations, devInstallations },
  );
  const folderSecretReload = createSecretReload({
    dirs: options.dirs,
    loadOptions,
    registry,
    sandbox: supervisor,
    log,
    async onServing(integration) {
      if (!options.autoInstall) return;
      const made = await installOneForDevelopment(integration, installations, stores.installations, platform);
      if (made !== undefined && !devInstallations.some((entry) => entry.integration === made.integration))
        devInstallations.push(made);
    },
  });
  const secretRefresher = createSecretRefresher({
    service: secretService,
    revision: () => stores.secrets.revision(),
    ...(stores.secrets.subscribe ? { subscribe: stores.secrets.subscribe.bind(stores.secrets) } : {}),
    snapshot: secretSnapshot,
    // Published integrations reload from their own folders, with the bundle they were accepted with.
    async reload(names) {
      const fromStore = new Set([...names].filter((name) => registry.get(name)?.published !== undefined));
      await folderSecretReload(new Set([...names].filter((name) => !fromStore.has(name))));
      await input.published.serving.reload(fromStore);
    },
    pollMs: options.secretsPollMs,
    log,
  });
  onFailure(() => secretRefresher.stop());
  const services = createHostServices({
    adminToken,
    log,
    baseUrl,
    registry,
    installationStore: stores.installations,
    installations,
    dispatcher,
    eventLog,
    feed,
    platformApi,
    publish,
    webhooks,
    readiness: createReadiness({
      ping: () => stores.ping(),
      workersUp: () => supervisor.workersUp(),
      shuttingDown: () => lifecycleState.shuttingDown,
    }),
    metrics: async () => ({ contentType: metrics.contentType, body: await metrics.render() }),
    tasks: stores.tasks,
    owedEvents: stores.owedEvents,
    siteScripts: createSiteScripts({ store: stores.installations, registry, dispatcher, baseUrl }),
    secrets: secretService,
    secretRefresher,
    publishing,
    oauthSeal: createOAuthSeal({
      integration: (name) => registry.get(name),
      tickets: connectTickets,
      states: createSealedStates({
        store: stores.sealedOAuthStates,
        secret: tokenSecret,
        now: options.clock,
        ttlMs: options.oauthStateTtlMs,
      }),
    }),
  });
  const appLimits = {
    maxPublicBodyBytes: options.limits.maxPublicBodyBytes,
    maxEnvelopeBytes: options.limits.maxEnvelopeBytes,
  };
  if (consoleHttp && consoleAssets) {
    const sessions = createConsoleSessions({ now: options.clock, ttlMs: options.consoleSessionTtlMs });
    consoleHttp.serve(
      createConsoleApp(services, {
        sessions,
        assets: await consoleAssets,
        port: consoleHttp.port,
        limits: appLimits,
      }).callback(),
    );
  }
  http.serve(createRequestListener(services, appLimits, consoleHttp ? { consoleUrl: consoleHttp.baseUrl } : {}));
  return { devInstallations, secretRefresher, services };
}
