// The real HostServices: installations from the store, environments from the host's records,
// dispatch through the sandbox supervisor, and platform event fan-out. It never reads request
// data for secrets, tokens or scopes: those always come from the host's own records.

import { randomUUID } from 'node:crypto';
import { HostError } from './errors.ts';
import type { LoadedIntegration } from './manifest/types.ts';
import { RUNTIME_VERDICT_HEADER, type SandboxEvent } from '../sandbox-api/runtime/contract.ts';
import type { DispatchOutcome, HostServices, Installation, InstallationView, Logger } from './services.ts';
import type { Store } from './platform/store.ts';
import type { PlatformData } from './platform/platform-data.ts';
import type { Supervisor } from './sandbox/supervisor.ts';
import type { PlatformApi } from './platform/api/router.ts';
import type { ResourceDirectory } from './platform/api/types.ts';
import { buildEnvironment } from './platform/environment.ts';
import type { EventLog } from './platform/event-log-store.ts';
import type { InstallationLifecycle } from './platform/lifecycle.ts';
import { viewInstallation } from './platform/installation-view.ts';
import { recordDispatch } from './platform/record-dispatch.ts';
import { createInstallationServices } from './installation-services.ts';
import type { createWebhookServices } from './webhook-services.ts';
import { deriveInstallationToken, deriveInstallLink, hashToken } from './platform/tokens.ts';
import { installationCovers, planInstallation } from './platform/installations.ts';
import { EVENT_SCOPES, validatePublishedEvent } from './platform/event-schemas.ts';

export interface HostServicesDeps {
  adminToken: string;
  log: Logger;
  baseUrl(): string;
  integrations: LoadedIntegration[];
  store: Store;
  platform: PlatformData;
  /** Spaces and sites as the store knows them, for event routing (same rule as API authorization). */
  directory: ResourceDirectory;
  supervisor: Supervisor;
  tokenSecret: string;
  platformApi: PlatformApi;
  /** Every dispatch is recorded here (GET /v1/integrations/:name/events). */
  eventLog: EventLog;
  /** Setup events, configuration edits and uninstall (platform/lifecycle.ts). */
  lifecycle: InstallationLifecycle;
  /** The host clock (ms since the epoch); injectable for tests. */
  now(): number;
  /** The built-in webhook integration's services (webhook-services.ts). */
  webhooks: ReturnType<typeof createWebhookServices>;
}

export function newEventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

export function createHostServices(deps: HostServicesDeps): HostServices {
  const byName = new Map(deps.integrations.map((integration) => [integration.name, integration]));

  const view = (installation: Installation): InstallationView => viewInstallation(deps.baseUrl(), byName.get(installation.integration), installation);

  const requireInstallation = (id: string): Installation => {
    const installation = deps.store.getInstallation(id);
    if (installation === undefined) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" not found`);
    return installation;
  };

  // An installation record is replaced (never mutated) when it changes, so its environment can be
  // built once per record; the supervisor then sends it to a worker only when it is new there.
  const environments = new WeakMap<Installation, Record<string, unknown>>();
  const environmentOf = (integration: LoadedIntegration, installation: Installation): Record<string, unknown> => {
    let environment = environments.get(installation);
    if (environment === undefined) {
      environment = buildEnvironment({ baseUrl: deps.baseUrl(), integration, installation, installationToken: deriveInstallationToken(deps.tokenSecret, installation.id) });
      environments.set(installation, environment);
    }
    return environment;
  };

  const dispatch: HostServices['dispatch'] = async (installationId, event, fetchBody) => {
    const installation = requireInstallation(installationId);
    const integration = byName.get(installation.integration);
    if (integration === undefined || integration.status !== 'ready') {
      throw new HostError('ERR_INTEGRATION_INVALID', `integration "${installation.integration}" is not loaded`);
    }
    if (integration.bundle === undefined) {
      throw new HostError('ERR_INTEGRATION_INVALID', `integration "${integration.name}" has no script to run`);
    }
    const fullEvent: SandboxEvent = { ...event, eventId: event.eventId ?? newEventId(), installationId } as SandboxEvent;
    const environment = environmentOf(integration, installation);
    const meta = { eventId: fullEvent.eventId, integration: integration.name, installationId, type: fullEvent.type };
    const outcome = await recordDispatch(deps.eventLog, deps.now, meta, () => deps.supervisor.dispatch(integration.name, { event: fullEvent, environment, fetchBody }));
    return { response: outcome.response, durationMs: outcome.durationMs, logs: outcome.logs } satisfies DispatchOutcome;
  };

  return {
    adminToken: deps.adminToken,
    log: deps.log,
    baseUrl: deps.baseUrl,
    platformApi: deps.platformApi,
    listIntegrations: () => deps.integrations,
    getIntegration: (name) => byName.get(name),

    async createInstallation(name, input) {
      const integration = byName.get(name);
      if (integration === undefined) throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${name}" not found`);
      const installation = planInstallation(deps.platform, integration, input, deriveInstallLink(deps.tokenSecret, name));
      deps.store.insertInstallation(installation, hashToken(deriveInstallationToken(deps.tokenSecret, installation.id)));
      deps.log.info(`installed ${name} as ${installation.id} (${installation.target} in ${installation.organization}, ${installation.status})`);
      deps.lifecycle.announceInstall(installation);
      // Built-ins may hand out something exactly once (the webhook's signing secret).
      const once = integration.builtin?.onInstall?.(installation.id) ?? {};
      return { ...view(installation), ...once };
    },

    getInstallation: (id) => view(requireInstallation(id)),

    ...createInstallationServices({ ...deps, getIntegration: (name) => byName.get(name), requireInstallation, view, dispatch }),

    dispatch,

    listDeliveries: deps.webhooks.listDeliveries,
    redeliver: deps.webhooks.redeliver,
    rotateSigningSecret: deps.webhooks.rotateSigningSecret,

    async publishEvent(body) {
      const event = validatePublishedEvent(body);
      const eventId = newEventId();
      // Durable before anything else happens: a crash after this line loses no webhook delivery.
      const queued = deps.webhooks.queueWebhooks(event, eventId);
      const targets = deps.store.listInstallations().filter((installation) => {
        const integration = byName.get(installation.integration);
        const scopes: string[] = integration?.manifest?.scopes ?? [];
        return (
          integration?.status === 'ready' &&
          integration.bundle !== undefined &&
          installation.status === 'active' &&
          EVENT_SCOPES[event.type].some((scope) => scopes.includes(scope)) &&
          installationCovers(deps.directory, installation, event as { spaceId?: unknown; siteId?: unknown })
        );
      });
      const dispatched = await Promise.all(
        targets.map(async (installation) => {
          try {
            const outcome = await dispatch(installation.id, { ...event, eventId }, null);
            const unhandled = outcome.response.headers.some(([name, value]) => name === RUNTIME_VERDICT_HEADER && value === 'no-handler');
            if (unhandled) return null;
            return { installationId: installation.id, integration: installation.integration, status: outcome.response.status };
          } catch (error) {
            const status = error instanceof HostError ? error.status : 500;
            return { installationId: installation.id, integration: installation.integration, status };
          }
        }),
      );
      return { eventId, dispatched: [...dispatched.filter((entry) => entry !== null), ...queued] };
    },
  };
}
