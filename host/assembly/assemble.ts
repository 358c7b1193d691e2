// Builds a host in named steps, in dependency order: listeners (so every URL is known), stores,
// integrations, sandbox, dispatch and installations, platform API, webhooks, services and HTTP;
// then the background work and the dev loop's reload. Owns the order and what closes what; it
// never runs guest code in this process.

import path from 'node:path';
import { createConsoleLogger, createJsonLogger } from '../common/logger.ts';
import { createHostMetrics, type HostMetrics } from '../metrics/metrics.ts';
import { resolveOptions, type HostOptions, type HostOptionsInput } from '../config/options.ts';
import type { EventFeed } from '../dispatch/event-feed.ts';
import type { TaskRunner } from '../tasks/runner.ts';
import type { OwedEventRunner } from '../owed-events/runner.ts';
import { isInside } from '../manifest/paths.ts';
import type { WatchTargets } from '../dev/watcher.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { loadPlatformData, type PlatformData } from '../platform-data/data.ts';
import type { Supervisor } from '../sandbox/supervisor.ts';
import type { HostServices } from '../server/services.ts';
import type { HostStores } from '../store/types.ts';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import { installForDevelopment, type DevInstallation } from './dev-installations.ts';
import { createReloader, type ReloadChange } from './reload.ts';
import { prefillFirstRequests } from './first-requests.ts';
import { wireDispatch } from './step-dispatch.ts';
import { openListeners } from './step-listeners.ts';
import { wirePlatformApi } from './step-platform-api.ts';
import { loadRegistry, startSandbox } from './step-sandbox.ts';
import { serveServices } from './step-services.ts';
import { openStoresAndSecrets } from './step-stores.ts';
import { loadPublished } from './step-publish.ts';
import type { AssemblyBase, OnFailure } from './step-types.ts';
import { wireWebhooks } from './step-webhooks.ts';

export type { OnFailure };

export interface Host {
  url: string;
  port: number;
  /**
   * `http://<host>:<port>` of the console's listener (the page is `<consoleUrl>/console`); absent without
   * `consolePort`.
   */
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
  /** The runner of the setup events owed to installations. */
  owedEvents: OwedEventRunner;
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

export async function assembleHost(input: HostOptionsInput, onFailure: OnFailure): Promise<Host> {
  const options = resolveOptions(input);
  const log = options.logger ?? (options.logFormat === 'json' ? createJsonLogger() : createConsoleLogger());
  const base: AssemblyBase = {
    options,
    log,
    metrics: createHostMetrics(),
    platform: loadPlatformData(options.platformPath),
    onFailure,
  };
  const { metrics, platform } = base;
  const lifecycleState = { shuttingDown: false };

  const listeners = await openListeners(options, metrics, onFailure);
  const { http, baseUrl, consoleHttp, metricsListener } = listeners;
  const stored = await openStoresAndSecrets(base);
  const { stores } = stored;
  const integrations = await loadRegistry(base, listeners, stored);
  const { registry, loadOptions } = integrations;
  // Published versions join the registry before the sandbox starts, which registers every ready one.
  const published = await loadPublished(base, stored, integrations);
  const supervisor = await startSandbox(base, listeners, integrations);
  const dispatch = await wireDispatch(base, listeners, stored, integrations, supervisor);
  const { feed, dispatcher, owedEvents, installations, tasks } = dispatch;
  const platformApi = wirePlatformApi(base, listeners, stored, integrations, supervisor, dispatch);
  const webhookParts = wireWebhooks(base, listeners, stored, integrations, dispatch);
  const { webhookDispatcher } = webhookParts;
  const { devInstallations, secretRefresher, services } = await serveServices(base, {
    listeners,
    stored,
    integrations,
    supervisor,
    dispatch,
    platformApi,
    webhookParts,
    lifecycleState,
    published,
  });

  // Resumes what a previous run left in the outbox (in flight when it died, or waiting to retry).
  await webhookDispatcher.start();
  // Likewise the tasks and the owed events left waiting or in flight.
  tasks.start();
  await owedEvents.start();
  if (options.autoInstall)
    devInstallations.push(...(await installForDevelopment(registry, installations, stores.installations, platform)));
  // What each installation's first request would build on its path (after a restart: every one's),
  // built now in the background, requests first.
  const prefill = prefillFirstRequests({
    list: () => stores.installations.listInstallations(),
    prepare: dispatcher.prepare,
    warn: (text) => log.warn(text),
  });
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
      await published.serving.stop();
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
    adminToken: stored.adminToken,
    adminTokenGenerated: stored.adminTokenGenerated,
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
    owedEvents,
    stores,
    platform,
    metrics,
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
    feed,
    async shutdown() {
      lifecycleState.shuttingDown = true;
      // A stream never finishes by itself: followers end first, so the drain does not wait for them.
      await feed.close();
      // The console holds no work that must finish: its sessions end with the process.
      await consoleHttp?.close();
      await http.drain(options.shutdownGraceMs);
      await stopTheRest();
    },
    reload: () => reloader.reload(),
    watchTargets() {
      const folders = registry
        .list()
        .filter((integration) => integration.builtin === undefined && integration.published === undefined)
        .map((integration) => integration.dir);
      const inputs = registry.list().flatMap((integration) => integration.bundle?.inputs ?? []);
      return {
        roots: options.dirs.map((dir) => path.resolve(dir)),
        folders,
        files: inputs.filter((file) => !folders.some((folder) => isInside(folder, file))),
      };
    },
    async close() {
      lifecycleState.shuttingDown = true;
      await feed.close();
      await consoleHttp?.close();
      await http.close();
      await stopTheRest();
    },
  };
}
