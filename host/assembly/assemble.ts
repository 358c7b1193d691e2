// Builds a host in dependency order: listener (so every URL is known), stores, integrations,
// sandbox, dispatch, installations, platform API, webhooks, events, then HTTP routes, and the dev
// loop's reload. Owns the order and what closes what; it never runs guest code in this process.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createConsoleLogger, createJsonLogger } from '../common/logger.ts';
import { createHostMetrics, type HostMetrics } from '../metrics/metrics.ts';
import { resolveOptions, type HostOptions, type HostOptionsInput } from '../config/options.ts';
import { createEventDispatcher, newEventId } from '../dispatch/event-dispatcher.ts';
import { createEventFeed, publishingEventLog, type EventFeed } from '../dispatch/event-feed.ts';
import { withLateRows } from '../dispatch/late-rows.ts';
import { maskerOf, maskingEventLog } from '../dispatch/masked-log.ts';
import { createEventPublisher } from '../events/publish.ts';
import { createLifecycle } from '../installations/lifecycle.ts';
import { createOwedEvents } from './owed-events.ts';
import { createOAuthStates } from '../installations/oauth-state.ts';
import { createConnectTickets } from '../installations/connect-ticket.ts';
import { createOAuthSeal } from '../oauth-seal/seal.ts';
import { createSealedStates } from '../oauth-seal/sealed-states.ts';
import { createInstallationService } from '../installations/service.ts';
import { adoptOrphanInstallations } from '../installations/hierarchy.ts';
import { createTaskQueue } from '../tasks/queue.ts';
import { createTaskRunner, type TaskRunner } from '../tasks/runner.ts';
import { createSiteScripts } from '../site-scripts/site-scripts.ts';
import { deriveInstallationToken, hashToken, newTokenSecret, TOKEN_SECRET_META_KEY, verifyIntegrationToken } from '../installations/tokens.ts';
import { createIntegrationRegistry, type IntegrationRegistry } from '../integrations/registry.ts';
import { loadIntegrations } from '../manifest/load.ts';
import { isInside } from '../manifest/paths.ts';
import type { WatchTargets } from '../dev/watcher.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { findOrganization, loadPlatformData, type PlatformData } from '../platform-data/data.ts';
import { apiToBridgeResponse, bridgeToApiRequest } from '../platform-api/bridge-adapter.ts';
import { createPlatformApi } from '../platform-api/router.ts';
import { platformRoutes } from '../platform-api/routes/index.ts';
import { Supervisor } from '../sandbox/supervisor.ts';
import { createRequestListener } from '../server/app.ts';
import { createConsoleApp } from '../server/console/app.ts';
import { loadConsoleAssets } from '../server/console/assets.ts';
import { createConsoleSessions } from '../server/console/sessions.ts';
import type { HostServices } from '../server/services.ts';
import type { HostStores, MetaStore } from '../store/types.ts';
import { createWebhookIntegration } from '../webhooks/builtin.ts';
import { webhookUrlOf } from '../webhooks/config.ts';
import { createWebhookDispatcher, type WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import { createWebhookService } from '../webhooks/service.ts';
import { buildRuntimeModules, buildRuntimeScript, buildRuntimeMaps, buildSnapshotScript } from '../../sandbox-api/runtime/build.ts';
import { installForDevelopment, type DevInstallation } from './dev-installations.ts';
import { createReloader, type ReloadChange } from './reload.ts';
import { createHostServices } from './host-services.ts';
import { prefillFirstRequests } from './first-requests.ts';
import { openHttpListener } from './http-listener.ts';
import { openMetricsListener } from './metrics-listener.ts';
import { openStoresExplained } from './open-stores.ts';
import { createReadiness } from './readiness.ts';
import { installationShapesOf } from '../gitbook/installation.ts';
import { readKeyRing } from '../secrets/keys.ts';
import { createSecretService } from '../secrets/service.ts';
import { createSecretRefresher } from './secret-refresh.ts';
import { createSecretReload } from './secret-reload.ts';
import { installOneForDevelopment } from './dev-installations.ts';

export interface Host {
  url: string;
  port: number;
  /** `http://<host>:<port>` of the console's listener (the page is `<consoleUrl>/console`); absent without `consolePort`. */
  consoleUrl?: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  options: HostOptions;
  /** The integrations served right now (a reload replaces entries). */
  readonly integrations: LoadedIntegration[];
  devInstallations: DevInstallation[];
  /**
   * How many installations had their first request's environment built ahead, once that
   * background prefill is over (first-requests.ts).
   */
  firstRequestsPrepared: Promise<number>;
  services: HostServices;
  supervisor: Supervisor;
  webhooks: WebhookDispatcher;
  tasks: TaskRunner;
  stores: HostStores;
  platform: PlatformData;
  metrics: HostMetrics;
  /** The URL of the --metrics-listen listener, when there is one. */
  metricsUrl?: string;
  /** The live event-log feed (followers of GET /v1/integrations/:name/events/stream). */
  feed: EventFeed;
  /**
   * Graceful stop (SIGTERM): /ready turns 503, event streams end cleanly, no new connections,
   * requests in progress finish within options.shutdownGraceMs, webhook attempts in flight are
   * recorded (the outbox stays consistent: what was not attempted stays pending for the next
   * host), workers stop, the store flushes and closes.
   */
  shutdown(): Promise<void>;
  /**
   * Loads every --dir again and swaps in what changed (the dev loop): new code serves the next
   * dispatch, in-flight ones finish on the old; a failing change keeps the last good build serving.
   */
  reload(): Promise<ReloadChange[]>;
  /** What the dev loop watches: the --dir roots, the integration folders, bundle inputs outside them. */
  watchTargets(): WatchTargets;
  /** Immediate stop: event streams end, open connections are cut, then the same order as shutdown(). */
  close(): Promise<void>;
}

/** Registers what must be closed if a later step of startup fails (closed in reverse). */
export type OnFailure = (close: () => unknown) => void;

/** The stored token secret, created on first start; the first host to store one wins, so all hosts on one database share it. */
async function loadTokenSecret(meta: MetaStore): Promise<string> {
  return (await meta.get(TOKEN_SECRET_META_KEY)) ?? (await meta.setIfAbsent(TOKEN_SECRET_META_KEY, newTokenSecret()));
}

/** The loaded integrations plus the built-ins (whose `host:` names no manifest can declare). */
function registryOf(loaded: LoadedIntegration[], builtins: LoadedIntegration[]): IntegrationRegistry {
  return createIntegrationRegistry([...loaded, ...builtins]);
}

/** `mask` hides the integration's secret values in the line (dispatch/masked-log.ts). */
function logIntegrationLine(log: HostServices['log'], mask: (integration: string) => (text: string) => string) {
  return (line: { integration: string; eventIds: string[]; level: string; text: string }) => {
    const prefix = `[${line.integration}${line.eventIds.length ? ` ${line.eventIds.join(',')}` : ''}]`;
    const method = line.level === 'error' ? 'error' : line.level === 'warn' ? 'warn' : 'info';
    log[method](`${prefix} ${line.level}: ${mask(line.integration)(line.text)}`);
  };
}

export async function assembleHost(input: HostOptionsInput, onFailure: OnFailure): Promise<Host> {
  const options = resolveOptions(input);
  const log = options.logger ?? (options.logFormat === 'json' ? createJsonLogger() : createConsoleLogger());
  const metrics = createHostMetrics();
  let shuttingDown = false;
  const platform = loadPlatformData(options.platformPath);

  const http = await openHttpListener(options.host, options.port);
  onFailure(() => http.close());
  const baseUrl = http.baseUrl;
  // The console gets its own listener, so its origin never serves an integration's pages.
  const consoleHttp = options.consolePort === undefined ? undefined : await openHttpListener(options.host, options.consolePort, '--console-port');
  if (consoleHttp) onFailure(() => consoleHttp.close());
  // Opened before the sandbox starts, so the egress policy knows every port the host listens on.
  const metricsListener = options.metricsListen ? await openMetricsListener(options.metricsListen, metrics) : undefined;
  if (metricsListener) onFailure(() => metricsListener.close());
  /** Never an egress destination on a non-public address (see excludingHostPorts). */
  const hostPorts = [http.port, ...(consoleHttp ? [consoleHttp.port] : []), ...(metricsListener ? [metricsListener.port] : [])];
  // Built while the integrations load; awaited when the console is attached.
  const consoleAssets = consoleHttp ? loadConsoleAssets() : undefined;
  consoleAssets?.catch(() => undefined);

  const stores = await openStoresExplained({ ...(options.storeUrl !== undefined ? { storeUrl: options.storeUrl } : {}), dataPath: options.dataPath, log });
  onFailure(() => stores.close());
  metrics.outboxDepthFrom(() => stores.outbox.depth());
  // Seeding adds only missing rows, so API writes survive restarts.
  await stores.platform.seed(platform);
  const directory = await stores.platform.loadDirectory();
  const tokenSecret = await loadTokenSecret(stores.meta);
  // Secrets stored per integration, decrypted with the operator's keys (none: they stay sealed,
  // and storing new ones is refused with how to configure a key; the host starts either way).
  const secretService = createSecretService({ store: stores.secrets, ring: await readKeyRing(options.env), now: options.clock });
  const secretSnapshot = { current: await secretService.snapshot() };
  const unreadable = [...secretSnapshot.current.byIntegration].flatMap(([integration, values]) => [...values].filter(([, stored]) => 'problem' in stored).map(([name]) => `${integration}/${name}`));
  if (unreadable.length > 0) log.warn(`secrets: ${unreadable.length} stored secret(s) cannot be decrypted with the configured keys (${secretService.ring.source}): ${unreadable.join(', ')}; integrations using them are invalid until the key is configured`);
  // An empty HOST_ADMIN_TOKEN counts as unset: an empty token would let anyone in.
  const configuredToken = options.adminToken || options.env.HOST_ADMIN_TOKEN || undefined;
  const adminToken = configuredToken ?? randomBytes(24).toString('base64url');

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
  const builtins = [createWebhookIntegration(stores.signingSecrets, { allow: options.allowEgress, hostPorts })];
  const registry = registryOf(loaded, builtins);
  // An integration that prints one of its secrets leaves `***` in the host log and the event log.
  const secretMask = maskerOf((name) => registry.get(name));

  const supervisor = new Supervisor({
    workers: options.workers,
    limits: options.limits,
    isolateMemoryMb: options.limits.isolateMemoryMb,
    egress: { allow: options.allowEgress, hostPorts, ...(options.egressResolve ? { resolve: options.egressResolve } : {}) },
    runtimeScript: await buildRuntimeScript(),
    snapshotScript: await buildSnapshotScript(),
    runtimeModules: await buildRuntimeModules(),
    runtimeMaps: await buildRuntimeMaps(),
    crashesBeforeQuarantine: options.limits.crashesBeforeQuarantine,
    crashWindowMs: options.limits.crashWindowMs,
    timeoutBreaker: { limit: options.limits.timeoutsBeforeCooldown, windowMs: options.limits.timeoutWindowMs, cooldownMs: options.limits.timeoutCooldownMs },
    demoteOffenders: options.demoteOffenders,
    ...(options.schedIdleCommand ? { schedIdleCommand: options.schedIdleCommand } : {}),
    offenderCpuQuota: { percent: options.offenderCpuQuotaPercent, ...(options.cpuCgroupMount ? { mount: options.cpuCgroupMount } : {}) },
    ...(options.machineSaturated ? { machineSaturated: options.machineSaturated } : {}),
    ...(options.schedIdleStarved ? { schedIdleStarved: options.schedIdleStarved } : {}),
    solitary: { maxWorkers: options.limits.maxSolitaryWorkers, probationMs: options.limits.solitaryProbationMs },
    onLog: logIntegrationLine(log, secretMask),
    onNotice: (level, message) => log[level](message),
    onCount: (name, integration) => metrics.counted(name, integration),
    ...(options.onEgressConnect ? { onEgressConnect: options.onEgressConnect } : {}),
  });
  onFailure(() => supervisor.stop());
  await supervisor.start();
  for (const integration of registry.list()) {
    if (integration.status === 'ready' && integration.bundle) supervisor.register(integration.name, integration.bundle);
  }
  supervisor.configure(baseUrl);

  // Every recorded entry also goes to the live followers (GET …/events/stream, npm run logs); reads
  // wait for rows still on their way (late-rows.ts).
  const feed = createEventFeed();
  const eventLog = withLateRows(maskingEventLog(publishingEventLog(stores.eventLog, feed), secretMask));
  const dispatcher = createEventDispatcher({ registry, sandbox: supervisor, eventLog, tokenSecret, baseUrl, now: options.clock, onDispatched: (event) => metrics.dispatched(event), platform, getInstallation: (id) => stores.installations.getInstallation(id) });
  const run = dispatcher.run;
  // The setup events owed to installations, written with the change that owes them, delivered in
  // order per installation by whichever host is alive (docs/operations.md#owed-platform-events).
  const owedEvents = createOwedEvents(stores, dispatcher, options, log, metrics);
  onFailure(() => owedEvents.stop());
  const lifecycle = createLifecycle({ store: stores.installations, registry, log, now: options.clock, newEventId, deliver: () => owedEvents.poke() });
  const connectTickets = createConnectTickets({ secret: tokenSecret, now: options.clock });
  const installations = createInstallationService({ registry, store: stores.installations, platform, lifecycle, run, tokenSecret, connectTickets, baseUrl, log });
  // Space and site installations stored before the hierarchy get their organization installation.
  await adoptOrphanInstallations({ store: stores.installations, registry, tokenSecret, log });

  // Tasks queued through GitBook's API run later as `task` events to the integration itself.
  const tasks = createTaskRunner({
    store: stores.tasks,
    limits: options.limits,
    dispatch: (integration, event) => dispatcher.runForIntegration(integration, event, null),
    now: options.clock,
    log,
    // A dispatch's deadline plus its waitUntil work, with room: a task held longer had its host die.
    leaseMs: options.limits.dispatchTimeoutMs + options.limits.waitUntilTimeoutMs + 30_000,
  });
  onFailure(() => tasks.stop());
  const queueTask = createTaskQueue({ store: stores.tasks, limits: options.limits, now: options.clock, poke: () => tasks.poke() });
  const installationLookup = {
    get: (id: string) => stores.installations.getInstallation(id),
    children: (parentId: string) => stores.installations.listInstallations({ parent: parentId }),
  };
  const platformApi = createPlatformApi({
    routes: platformRoutes,
    deps: {
      platform: stores.platform,
      log,
      directory,
      installations: installationLookup,
      gitbook: {
        baseUrl,
        shapes: installationShapesOf(baseUrl, platform.spaces),
        organization: (id) => {
          // By id only (findOrganization also takes a subdomain).
          const found = findOrganization(platform, id);
          return found?.id === id ? found : undefined;
        },
        installationToken: (id) => deriveInstallationToken(tokenSecret, id),
        listInstallations: (integration) => stores.installations.listInstallations({ integration }),
        editInstallation: (id, edit) => lifecycle.editFromIntegration(id, edit),
        queueTask,
      },
      connectTickets,
      quotas: { maxPagesPerSpace: options.limits.maxPagesPerSpace, maxSpaceContentBytes: options.limits.maxSpaceContentBytes, maxConversationBytesPerInstallation: options.limits.maxConversationBytesPerInstallation },
      oauthStates: createOAuthStates({ store: stores.oauthStates, secret: tokenSecret, now: options.clock, ttlMs: options.oauthStateTtlMs }),
      updateOwnConfiguration: async (installationId, patch) => installations.view(await lifecycle.editConfiguration(installationId, patch, 'integration')),
    },
    directory,
    installations: installationLookup,
    resolveToken: async (token) => {
      const integration = verifyIntegrationToken(tokenSecret, token);
      if (integration !== undefined) return { integration };
      const owner = await stores.installations.findTokenOwner(hashToken(token));
      const installation = owner === undefined ? undefined : await stores.installations.getInstallation(owner);
      return installation === undefined ? undefined : { installation };
    },
    getIntegration: (name) => registry.get(name),
    log,
  });
  // Guest fetches to environment.apiEndpoint: the same handlers as HTTP, never the network.
  supervisor.serveApi(async (integration, request) => ({
    ok: true,
    value: apiToBridgeResponse(await platformApi.handle(bridgeToApiRequest(request), { integration }), request.url),
  }));

  const webhookDispatcher = createWebhookDispatcher({
    outbox: stores.outbox,
    policyOptions: { allow: options.allowEgress, hostPorts },
    secretsFor: (installationId) => stores.signingSecrets.secretsFor(installationId, options.clock()),
    currentUrl: async (installationId) => webhookUrlOf((await stores.installations.getInstallation(installationId))?.configuration),
    now: options.clock,
    log,
    onAttempt: ({ status }) => metrics.attempted(status === 'pending' ? 'retry' : status),
    // Other hosts queue (or abandon) deliveries in a shared outbox: look for them every second.
    ...(stores.shared ? { pollIntervalMs: 1_000 } : {}),
    ...(options.webhookLeaseMs !== undefined ? { leaseMs: options.webhookLeaseMs } : {}),
  });
  onFailure(() => webhookDispatcher.stop());
  const webhooks = createWebhookService({ installations: stores.installations, outbox: stores.outbox, dispatcher: webhookDispatcher, secrets: stores.signingSecrets, now: options.clock });
  const publish = createEventPublisher({ registry, installations: stores.installations, directory, dispatcher, queueWebhooks: webhooks.queueWebhooks });

  // Filled once the host is up (dev installations); a secret that makes an integration ready later adds its own.
  const devInstallations: DevInstallation[] = [];
  const secretRefresher = createSecretRefresher({
    service: secretService,
    revision: () => stores.secrets.revision(),
    ...(stores.secrets.subscribe ? { subscribe: stores.secrets.subscribe.bind(stores.secrets) } : {}),
    snapshot: secretSnapshot,
    reload: createSecretReload({
      dirs: options.dirs,
      loadOptions,
      registry,
      sandbox: supervisor,
      log,
      async onServing(integration) {
        if (!options.autoInstall) return;
        const made = await installOneForDevelopment(integration, installations, stores.installations, platform);
        if (made !== undefined && !devInstallations.some((entry) => entry.integration === made.integration)) devInstallations.push(made);
      },
    }),
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
    readiness: createReadiness({ ping: () => stores.ping(), workersUp: () => supervisor.workersUp(), shuttingDown: () => shuttingDown }),
    metrics: async () => ({ contentType: metrics.contentType, body: await metrics.render() }),
    tasks: stores.tasks,
    owedEvents: stores.owedEvents,
    siteScripts: createSiteScripts({ store: stores.installations, registry, dispatcher, baseUrl }),
    secrets: secretService,
    secretRefresher,
    oauthSeal: createOAuthSeal({
      integration: (name) => registry.get(name),
      tickets: connectTickets,
      states: createSealedStates({ store: stores.sealedOAuthStates, secret: tokenSecret, now: options.clock, ttlMs: options.oauthStateTtlMs }),
    }),
  });
  const appLimits = { maxPublicBodyBytes: options.limits.maxPublicBodyBytes, maxEnvelopeBytes: options.limits.maxEnvelopeBytes };
  if (consoleHttp && consoleAssets) {
    const sessions = createConsoleSessions({ now: options.clock, ttlMs: options.consoleSessionTtlMs });
    consoleHttp.serve(createConsoleApp(services, { sessions, assets: await consoleAssets, port: consoleHttp.port, limits: appLimits }).callback());
  }
  http.serve(createRequestListener(services, appLimits, consoleHttp ? { consoleUrl: consoleHttp.baseUrl } : {}));
  // Resumes what a previous run left in the outbox (in flight when it died, or waiting to retry).
  await webhookDispatcher.start();
  // Likewise the tasks and the owed events left waiting or in flight.
  tasks.start();
  await owedEvents.start();
  if (options.autoInstall) devInstallations.push(...(await installForDevelopment(registry, installations, stores.installations, platform)));
  // What each installation's first request would build on its path (after a restart: every one's),
  // built now in the background, requests first.
  const prefill = prefillFirstRequests({ list: () => stores.installations.listInstallations(), prepare: dispatcher.prepare, warn: (text) => log.warn(text) });
  const reloader = createReloader({
    dirs: options.dirs,
    loadOptions,
    registry,
    sandbox: supervisor,
    autoInstall: options.autoInstall,
    installations,
    store: stores.installations,
    platform,
    devInstallations,
  });

  let stopping: Promise<void> | null = null;
  function stopTheRest(): Promise<void> {
    stopping ??= (async () => {
      prefill.stop();
      secretRefresher.stop();
      await tasks.stop();
      await owedEvents.stop();
      await webhookDispatcher.stop();
      await supervisor.stop();
      await metricsListener?.close();
      await stores.close();
    })();
    return stopping;
  }

  return {
    url: baseUrl,
    port: http.port,
    ...(consoleHttp ? { consoleUrl: consoleHttp.baseUrl } : {}),
    adminToken,
    adminTokenGenerated: configuredToken === undefined,
    options,
    get integrations() {
      return registry.list();
    },
    devInstallations,
    firstRequestsPrepared: prefill.done,
    services,
    supervisor,
    webhooks: webhookDispatcher,
    tasks,
    stores,
    platform,
    metrics,
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
    feed,
    async shutdown() {
      shuttingDown = true;
      // A stream never finishes by itself: followers end first, so the drain does not wait for them.
      await feed.close();
      // The console holds no work that must finish: its sessions end with the process.
      await consoleHttp?.close();
      await http.drain(options.shutdownGraceMs);
      await stopTheRest();
    },
    reload: () => reloader.reload(),
    watchTargets() {
      const folders = registry.list().filter((integration) => integration.builtin === undefined).map((integration) => integration.dir);
      const inputs = registry.list().flatMap((integration) => integration.bundle?.inputs ?? []);
      return {
        roots: options.dirs.map((dir) => path.resolve(dir)),
        folders,
        files: inputs.filter((file) => !folders.some((folder) => isInside(folder, file))),
      };
    },
    async close() {
      shuttingDown = true;
      await feed.close();
      await consoleHttp?.close();
      await http.close();
      await stopTheRest();
    },
  };

}
