// createHost(options): the one public entry of the host. Loads platform data and integrations,
// starts the sandbox workers, opens the store, serves HTTP, and makes the dev installations.
// It owns startup order and shutdown; it never runs guest code in this process.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { resolveOptions, type HostOptions, type HostOptionsInput } from './options.ts';
import { createConsoleLogger } from './logger.ts';
import { loadIntegrations } from './manifest/load.ts';
import type { LoadedIntegration } from './manifest/types.ts';
import { loadPlatformData, findOrganization, type PlatformData } from './platform/platform-data.ts';
import { openDatabase, openSqliteStore, type Store } from './platform/store.ts';
import { createSqlitePlatformStore } from './platform/platform-store.ts';
import { newTokenSecret, TOKEN_SECRET_META_KEY } from './platform/tokens.ts';
import { Supervisor } from './sandbox/supervisor.ts';
import { buildRuntimeScript } from '../sandbox-api/runtime/build.ts';
import { createHostServices } from './host-services.ts';
import { createApp } from './server/app.ts';
import { answerClientError } from './server/client-error.ts';
import type { HostServices, InstallationView, Logger } from './services.ts';
import { createPlatformApi, type PlatformApi } from './platform/api/router.ts';
import { platformRoutes } from './platform/api/routes/index.ts';
import type { PlatformApiDeps } from './platform/api/deps.ts';
import { hashToken } from './platform/tokens.ts';
import { bridgeToApiRequest, apiToBridgeResponse } from './platform/api/bridge-adapter.ts';
import { openEventLog } from './platform/event-log-store.ts';
import { openOAuthStateStore } from './platform/oauth-state-store.ts';
import { createOAuthStates } from './platform/oauth-state.ts';
import { createLifecycle } from './platform/lifecycle.ts';
import { createOutbox } from './webhooks/outbox-store.ts';
import { createSigningSecretStore } from './webhooks/secret-store.ts';
import { createWebhookDispatcher, type WebhookDispatcher } from './webhooks/dispatcher.ts';
import { createWebhookIntegration } from './webhooks/builtin.ts';
import { createWebhookServices } from './webhook-services.ts';

export interface DevInstallation {
  integration: string;
  installation?: InstallationView;
  note?: string;
}

export interface Host {
  url: string;
  port: number;
  adminToken: string;
  adminTokenGenerated: boolean;
  options: HostOptions;
  integrations: LoadedIntegration[];
  devInstallations: DevInstallation[];
  services: HostServices;
  supervisor: Supervisor;
  webhooks: WebhookDispatcher;
  store: Store;
  platform: PlatformData;
  close(): Promise<void>;
}

function logIntegrationLine(log: Logger) {
  return (line: { integration: string; eventIds: string[]; level: string; text: string }) => {
    const prefix = `[${line.integration}${line.eventIds.length ? ` ${line.eventIds.join(',')}` : ''}]`;
    const method = line.level === 'error' ? 'error' : line.level === 'warn' ? 'warn' : 'info';
    log[method](`${prefix} ${line.level}: ${line.text}`);
  };
}

export async function createHost(input: HostOptionsInput = {}): Promise<Host> {
  // Whatever was opened before a startup failure (store, worker processes) is closed again, so a
  // bad option or platform file never leaves a database handle or orphaned workers behind.
  const opened: (() => unknown)[] = [];
  try {
    return await assembleHost(input, opened);
  } catch (error) {
    for (const close of opened.reverse()) {
      try {
        await close();
      } catch {
        // Best effort: the startup error is the one to report.
      }
    }
    throw error;
  }
}

async function assembleHost(input: HostOptionsInput, opened: (() => unknown)[]): Promise<Host> {
  const options = resolveOptions(input);
  const log = options.logger ?? createConsoleLogger();
  const platform = loadPlatformData(options.platformPath);
  const db = openDatabase(options.dataPath);
  const store = openSqliteStore(db);
  opened.push(() => store.close());
  // Same database file; seeding adds only missing rows, so API writes survive restarts.
  const platformStore = createSqlitePlatformStore(db);
  platformStore.seed(platform);
  let tokenSecret = store.getMeta(TOKEN_SECRET_META_KEY);
  if (tokenSecret === undefined) {
    tokenSecret = newTokenSecret();
    store.setMeta(TOKEN_SECRET_META_KEY, tokenSecret);
  }
  const eventLog = openEventLog(db);
  const oauthStates = createOAuthStates({ store: openOAuthStateStore(db), secret: tokenSecret, now: options.clock, ttlMs: options.oauthStateTtlMs });
  // An empty HOST_ADMIN_TOKEN counts as unset: an empty token would let anyone in.
  const configuredToken = options.adminToken || options.env.HOST_ADMIN_TOKEN || undefined;
  const adminTokenGenerated = configuredToken === undefined;
  const adminToken = configuredToken ?? randomBytes(24).toString('base64url');

  const signingSecrets = createSigningSecretStore(db);
  const loaded = await loadIntegrations(options.dirs, {
    env: options.env,
    firstPartyOrganizations: platform.firstPartyOrganizations,
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
  });
  // The built-in webhook integration is listed with the others; a fixture may not take its name.
  const webhookIntegration = createWebhookIntegration(signingSecrets, { allow: options.allowEgress });
  for (const clash of loaded.filter((integration) => integration.name === webhookIntegration.name)) {
    clash.status = 'invalid';
    clash.errors.push({ file: clash.manifestPath, pointer: '/name', message: `"${webhookIntegration.name}" is the name of a built-in integration` });
  }
  const integrations = [...loaded, webhookIntegration];
  const outbox = createOutbox(db);
  const webhooks = createWebhookDispatcher({
    outbox,
    policyOptions: { allow: options.allowEgress },
    secretsFor: (installationId) => signingSecrets.secretsFor(installationId, options.clock()),
    now: options.clock,
    log,
  });
  let platformApi: PlatformApi | null = null;
  const supervisor = new Supervisor({
    workers: options.workers,
    limits: options.limits,
    egress: { allow: options.allowEgress, ...(options.egressResolve ? { resolve: options.egressResolve } : {}) },
    runtimeScript: await buildRuntimeScript(),
    crashesBeforeQuarantine: options.limits.crashesBeforeQuarantine,
    crashWindowMs: options.limits.crashWindowMs,
    timeoutBreaker: { limit: options.limits.timeoutsBeforeCooldown, windowMs: options.limits.timeoutWindowMs, cooldownMs: options.limits.timeoutCooldownMs },
    demoteOffenders: true,
    onLog: logIntegrationLine(log),
    onNotice: (level, message) => log[level](message),
    ...(options.onEgressConnect ? { onEgressConnect: options.onEgressConnect } : {}),
    // Guest fetches to environment.apiEndpoint: the same handlers as HTTP, never the network.
    onApiRequest: async (integration, request) => {
      if (platformApi === null) return { ok: false, code: 'TypeError', message: 'platform API not ready' };
      return { ok: true, value: apiToBridgeResponse(await platformApi.handle(bridgeToApiRequest(request), { integration }), request.url) };
    },
  });
  opened.push(() => supervisor.stop());
  await supervisor.start();
  for (const integration of integrations) {
    if (integration.status === 'ready' && integration.bundle) supervisor.register(integration.name, integration.bundle);
  }

  // `services` exists before anything dispatches; the lifecycle reaches the sandbox through it.
  const lifecycle = createLifecycle({
    store,
    getIntegration: (name) => integrations.find((integration) => integration.name === name),
    dispatch: (installationId, event, fetchBody) => services.dispatch(installationId, event, fetchBody),
    log,
  });
  const apiDeps: PlatformApiDeps = {
    platform: platformStore,
    oauthStates,
    updateOwnConfiguration: (installationId, patch) => services.getInstallation(lifecycle.editConfiguration(installationId, patch, 'integration').id),
  };
  platformApi = createPlatformApi({
    routes: platformRoutes,
    deps: apiDeps,
    directory: platformStore,
    resolveToken: (token) => {
      const owner = store.findTokenOwner(hashToken(token));
      return owner === undefined ? undefined : store.getInstallation(owner);
    },
    getIntegration: (name) => integrations.find((integration) => integration.name === name),
    log,
  });
  let baseUrl = '';
  const webhookServices = createWebhookServices({
    store,
    outbox,
    dispatcher: webhooks,
    secrets: signingSecrets,
    now: options.clock,
    requireInstallation: (id) => services.getInstallation(id),
  });
  const services = createHostServices({ adminToken, log, baseUrl: () => baseUrl, integrations, store, platform, directory: platformStore, supervisor, tokenSecret, platformApi, eventLog, lifecycle, now: options.clock, webhooks: webhookServices });
  const app = createApp(services, { maxPublicBodyBytes: options.limits.maxPublicBodyBytes, maxEnvelopeBytes: options.limits.maxEnvelopeBytes });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port, options.host, () => resolve(listening));
    listening.once('error', reject);
    // Requests Node itself would refuse with a bare status line get the host's JSON errors, and an
    // Expect other than 100-continue is ignored (RFC 9110 allows it) instead of Node's empty 417.
    listening.on('clientError', answerClientError);
    listening.on('checkExpectation', app.callback());
  });
  const port = (server.address() as AddressInfo).port;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  baseUrl = `http://${hostPart}:${port}`;
  supervisor.configure(baseUrl);
  // Resumes what a previous run left in the outbox (in flight when it died, or waiting to retry).
  webhooks.start();

  const devInstallations = options.autoInstall ? await installForDevelopment(integrations, services, store, platform) : [];

  return {
    url: baseUrl,
    port,
    adminToken,
    adminTokenGenerated,
    options,
    integrations,
    devInstallations,
    services,
    supervisor,
    webhooks,
    store,
    platform,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await webhooks.stop();
      await supervisor.stop();
      try {
        eventLog.flush();
      } finally {
        store.close();
      }
    },
  };
}

/**
 * Dev convenience (DESIGN §4.1): each ready integration with no installation yet is installed
 * once at organization level in its manifest's organization, so its endpoint works at once.
 */
async function installForDevelopment(integrations: LoadedIntegration[], services: HostServices, store: Store, platform: PlatformData): Promise<DevInstallation[]> {
  const result: DevInstallation[] = [];
  for (const integration of integrations) {
    // Built-ins (the webhook) need a target and configuration of the user's choosing.
    if (integration.status !== 'ready' || integration.manifest === undefined || integration.builtin !== undefined) continue;
    const existing = store.listInstallations({ integration: integration.name })[0];
    if (existing) {
      result.push({ integration: integration.name, installation: services.getInstallation(existing.id) });
      continue;
    }
    const organization = findOrganization(platform, integration.manifest.organization);
    if (organization === undefined) {
      result.push({ integration: integration.name, note: `organization "${integration.manifest.organization}" is not in the platform data; not installed` });
      continue;
    }
    const installation = await services.createInstallation(integration.name, { organization: organization.id, target: 'organization' });
    result.push({ integration: integration.name, installation });
  }
  return result;
}
