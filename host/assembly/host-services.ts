// The real HostServices: the HTTP port put together from the domain services. Thin on purpose:
// each method is one domain's operation; a rule written here would be a rule nobody finds.

import { HostError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import type { EventDispatcher } from '../dispatch/event-dispatcher.ts';
import type { EventLog } from '../dispatch/event-log.ts';
import type { EventFeed } from '../dispatch/event-feed.ts';
import type { PublishResult } from '../events/publish.ts';
import type { InstallationStore } from '../installations/model.ts';
import type { InstallationService } from '../installations/service.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { PlatformApi } from '../platform-api/router.ts';
import type { HostServices } from '../server/services.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { readIntegrationAsset } from '../integrations/assets.ts';
import type { TaskStore } from '../tasks/model.ts';
import type { SiteScripts } from '../site-scripts/site-scripts.ts';
import type { SecretService } from '../secrets/service.ts';
import { integrationSecretsView, storedSecretView } from '../secrets/view.ts';
import type { SecretRefresher } from './secret-refresh.ts';
import type { OAuthSeal } from '../oauth-seal/seal.ts';
import type { OwedEventStore } from '../owed-events/model.ts';
import { viewOwedEvent } from '../owed-events/view.ts';
import type { PublishingService } from '../publish/service.ts';

export interface HostServicesParts {
  adminToken: string;
  log: Logger;
  baseUrl: string;
  registry: IntegrationRegistry;
  installationStore: InstallationStore;
  installations: InstallationService;
  dispatcher: EventDispatcher;
  eventLog: EventLog;
  feed: EventFeed;
  platformApi: PlatformApi;
  publish(body: unknown): Promise<PublishResult>;
  webhooks: WebhookService;
  readiness: HostServices['readiness'];
  metrics: HostServices['metrics'];
  tasks: TaskStore;
  owedEvents: OwedEventStore;
  siteScripts: SiteScripts;
  secrets: SecretService;
  secretRefresher: SecretRefresher;
  oauthSeal: OAuthSeal;
  publishing: PublishingService;
}

export function createHostServices(parts: HostServicesParts): HostServices {
  const { installations, registry, webhooks } = parts;
  /** Secrets belong to integrations this host loads from folders; built-ins (`host:…`) have none. */
  const ownIntegration = (name: string) => {
    const integration = registry.require(name);
    if (integration.builtin !== undefined)
      throw new HostError(
        'ERR_INTEGRATION_NOT_FOUND',
        `integration "${name}" is built in; built-in integrations take no secrets`,
      );
    return integration;
  };
  return {
    adminToken: parts.adminToken,
    log: parts.log,
    baseUrl: () => parts.baseUrl,
    platformApi: parts.platformApi,
    siteScripts: parts.siteScripts,
    oauthSeal: parts.oauthSeal,
    publishing: parts.publishing,

    listIntegrations: () => registry.list(),
    getIntegration: (name) => registry.get(name),

    createInstallation: (name, input) => installations.create(name, input),
    requireInstallation: (id) => installations.require(id),
    findInstallation: (id) => parts.installationStore.getInstallation(id),
    listInstallations: (query) => installations.list(query),
    getInstallation: async (id) => installations.view(await installations.require(id)),
    deleteInstallation: (id) => installations.delete(id),
    updateConfiguration: (id, patch) => installations.updateConfiguration(id, patch),
    completeProperty: (id, property) => installations.completeProperty(id, property),
    installLinkOf: (name) => installations.installLinkOf(name),

    async listEvents(name, page) {
      registry.require(name);
      return parts.eventLog.list(name, page);
    },
    async getEvent(name, eventId) {
      registry.require(name);
      const entry = await parts.eventLog.get(name, eventId);
      if (entry === undefined)
        throw new HostError('ERR_NOT_FOUND', `integration "${name}" has no event "${eventId}" in its log`);
      return entry;
    },

    async followEvents(name, filter, follower) {
      registry.require(name);
      const wanted = filter.installationId;
      if (wanted === undefined) return parts.feed.follow(name, follower);
      const installation = await parts.installationStore.getInstallation(wanted);
      if (installation === undefined || installation.integration !== name) {
        throw new HostError(
          'ERR_INSTALLATION_NOT_FOUND',
          `installation "${wanted}" of integration "${name}" not found`,
        );
      }
      return parts.feed.follow(name, {
        entry: (entry) => {
          if (entry.installationId === wanted) follower.entry(entry);
        },
        end: () => follower.end(),
      });
    },

    async listTasks(name, page) {
      registry.require(name);
      if (page.cursor !== undefined && !/^[1-9]\d{0,15}$/.test(page.cursor))
        throw new HostError('ERR_VALIDATION', 'cursor is not one this API handed out', [
          { pointer: '/cursor', message: 'is invalid' },
        ]);
      const { items, nextCursor } = await parts.tasks.list(name, page);
      const iso = (ms: number) => new Date(ms).toISOString();
      return {
        items: items.map((task) => ({
          id: task.id,
          eventId: task.eventId,
          status: task.status,
          attempts: task.attempts,
          runAt: iso(task.runAt),
          ...(task.lastStatus !== undefined ? { lastStatus: task.lastStatus } : {}),
          ...(task.lastError !== undefined ? { lastError: task.lastError } : {}),
          createdAt: iso(task.createdAt),
          updatedAt: iso(task.updatedAt),
        })),
        nextCursor,
      };
    },
    async listOwedEvents(installationId, limit) {
      await installations.require(installationId);
      return { items: (await parts.owedEvents.list(installationId, limit)).map(viewOwedEvent) };
    },
    dispatch: (installation, event, fetchBody, options) =>
      parts.dispatcher.run(installation, event, fetchBody, options),
    dispatchToIntegration(name, event, fetchBody, options) {
      // Built-ins are host code with no endpoint of their own.
      const integration = registry.get(name);
      if (integration === undefined || integration.builtin !== undefined)
        throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${name}" not found`);
      return parts.dispatcher.runForIntegration(name, event, fetchBody, options);
    },
    async readIntegrationAsset(name, path) {
      const integration = registry.get(name);
      if (integration === undefined || integration.builtin !== undefined)
        throw new HostError('ERR_NOT_FOUND', `integration "${name}" not found`);
      return readIntegrationAsset(integration, path);
    },
    publishEvent: (event) => parts.publish(event),

    listDeliveries: (id, page) => webhooks.listDeliveries(id, page),
    redeliver: (id) => webhooks.redeliver(id),
    rotateSigningSecret: (id) => webhooks.rotateSigningSecret(id),

    async listSecrets(name) {
      const integration = ownIntegration(name);
      return integrationSecretsView(integration, await parts.secrets.list(name), parts.secrets.ring);
    },
    async setSecret(name, secret, value, via) {
      ownIntegration(name);
      const { created, ...listing } = await parts.secrets.set(name, secret, value, via);
      parts.log.info(
        `secrets: ${secret} of ${name} ${created ? 'stored' : 'replaced'} through ` +
          `the ${via === 'api' ? 'admin API' : 'console'} (key ${listing.keyId})`,
      );
      await parts.secretRefresher.refresh([name]);
      const integration = ownIntegration(name);
      return { secret: storedSecretView(integration, listing), created, status: integration.status };
    },
    async unsetSecret(name, secret) {
      ownIntegration(name);
      if (!(await parts.secrets.unset(name, secret)))
        throw new HostError('ERR_NOT_FOUND', `integration "${name}" has no stored secret "${secret}"`);
      parts.log.info(`secrets: ${secret} of ${name} removed`);
      await parts.secretRefresher.refresh([name]);
      return { status: ownIntegration(name).status };
    },

    readiness: () => parts.readiness(),
    metrics: () => parts.metrics(),
  };
}
