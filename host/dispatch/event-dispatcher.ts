// Runs one event for one installation: the envelope (event id, the environment built from the
// host's own records), the sandbox call, the event-log record and the runtime's typed verdict.
// Never takes secrets, tokens or scopes from a request; the caller hands in the record it found.

import { HostError } from '../common/errors.ts';
import { pooledRandomIds } from '../common/random-ids.ts';
import type { Installation } from '../installations/model.ts';
import { deriveInstallationToken, deriveIntegrationToken, deriveSigningSecret } from '../installations/tokens.ts';
import { findOrganization, type PlatformData } from '../platform-data/data.ts';
import { gitbookOrganization } from '../gitbook/organization.ts';
import { installationShapesOf, type InstallationShapeContext } from '../gitbook/installation.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { Envelope, RuntimeVerdict, SandboxEvent, SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import type { StreamedBody } from '../sandbox/streamed-body.ts';
import { buildEnvironment } from './environment.ts';
import type { EventLog } from './event-log.ts';
import { recordDispatch, type DispatchObserver } from './record.ts';

/** An event as a caller builds it: the dispatcher adds `installationId`, and `eventId` when missing. */
export type DispatchEvent = Omit<SandboxEvent, 'eventId'> & { eventId?: string };

export interface DispatchOutcome {
  response: SandboxResponse;
  /** Set when the answer is the runtime's own (no handler, unknown component, guest error), not the integration's. */
  verdict?: RuntimeVerdict;
  durationMs: number;
  logs: { level: string; text: string }[];
  /** The body, when the caller asked for it as a stream (DispatchOptions) and it follows the answer. */
  body?: StreamedBody;
}

/** `stream`: the caller can send a response body on as the integration produces it. */
export interface DispatchOptions {
  stream?: boolean;
}

/** What the dispatcher needs of the sandbox (the supervisor). */
export interface SandboxRunner {
  dispatch(
    integration: string,
    envelope: Envelope,
    options?: DispatchOptions,
  ): Promise<{
    response: SandboxResponse;
    logs: { level: string; text: string }[];
    durationMs: number;
    body?: StreamedBody;
  }>;
  /** Makes ahead what dispatching this environment will need (its text for the workers); optional. */
  prepareEnvironment?(environment: Envelope['environment']): void;
}

export interface EventDispatcher {
  run(
    installation: Installation,
    event: DispatchEvent,
    fetchBody: Uint8Array | null,
    options?: DispatchOptions,
  ): Promise<DispatchOutcome>;
  /**
   * Runs one event for the integration itself, with no installation: its integration-level public
   * endpoint and its tasks. The environment carries the integration token only.
   */
  runForIntegration(
    integration: string,
    event: DispatchEvent,
    fetchBody: Uint8Array | null,
    options?: DispatchOptions,
  ): Promise<DispatchOutcome>;
  /**
   * Builds ahead what the first run() for this installation record would build on its own path:
   * its environment, and what the sandbox makes of it. Dispatches nothing. False when its
   * integration is not runnable (nothing built).
   */
  prepare(installation: Installation): Promise<boolean>;
}

export interface EventDispatcherDeps {
  registry: IntegrationRegistry;
  sandbox: SandboxRunner;
  eventLog: EventLog;
  /** The secret installation tokens are derived from. */
  tokenSecret: string;
  baseUrl: string;
  now(): number;
  /** Told about every settled dispatch (metrics). */
  onDispatched?: DispatchObserver;
  /** Organizations (the owner in `environment.integration`) and space counts. */
  platform: PlatformData;
  /** The organization installation of a space or site installation (a cached store read). */
  getInstallation(id: string): Promise<Installation | undefined>;
}

/**
 * Event ids are seen by integrations and callers, so they stay unpredictable: 128 random bits as
 * 32 hex characters, drawn 256 ids at a time (common/random-ids.ts).
 */
const nextEventId = pooledRandomIds(16, 256, 'hex');

export function newEventId(): string {
  return `evt_${nextEventId()}`;
}

function runnable(
  registry: IntegrationRegistry,
  name: string,
): LoadedIntegration & { bundle: NonNullable<LoadedIntegration['bundle']> } {
  const integration = registry.get(name);
  if (integration === undefined || integration.status !== 'ready') {
    throw new HostError('ERR_INTEGRATION_INVALID', `integration "${name}" is not loaded`);
  }
  if (integration.bundle === undefined)
    throw new HostError('ERR_INTEGRATION_INVALID', `integration "${integration.name}" has no script to run`);
  return integration as LoadedIntegration & { bundle: NonNullable<LoadedIntegration['bundle']> };
}

export function createEventDispatcher(deps: EventDispatcherDeps): EventDispatcher {
  const shapes: InstallationShapeContext = installationShapesOf(deps.baseUrl, deps.platform.spaces);
  const ownerOf = (integration: LoadedIntegration): Record<string, unknown> => {
    const declared = integration.manifest?.organization ?? '';
    // An owner the platform data does not know (a first-party integration published elsewhere) is shown by its id.
    return gitbookOrganization(
      deps.baseUrl,
      findOrganization(deps.platform, declared) ?? { id: declared, subdomain: declared, title: declared, members: [] },
    );
  };
  const signing = (kind: 'integration' | 'installation', id: string) => deriveSigningSecret(deps.tokenSecret, kind, id);
  const integrationToken = (name: string) => deriveIntegrationToken(deps.tokenSecret, name);

  // An installation record is replaced (never mutated) when it changes, and so is an integration
  // when the dev loop reloads it: the environment is built once per (integration, record) pair (and,
  // for a space or site installation, per record of its organization installation); the supervisor
  // then sends it to a worker only when it is new there.
  const environments = new WeakMap<
    LoadedIntegration,
    WeakMap<Installation, { parent: Installation | undefined; environment: Record<string, unknown> }>
  >();
  const integrationEnvironments = new WeakMap<LoadedIntegration, Record<string, unknown>>();
  const environmentOf = async (
    integration: LoadedIntegration,
    installation: Installation,
  ): Promise<Record<string, unknown>> => {
    const parent = installation.parent === undefined ? undefined : await deps.getInstallation(installation.parent);
    let perInstallation = environments.get(integration);
    if (perInstallation === undefined) environments.set(integration, (perInstallation = new WeakMap()));
    const cached = perInstallation.get(installation);
    if (cached !== undefined && cached.parent === parent) return cached.environment;
    const organizationInstallation = installation.target === 'organization' ? installation : parent;
    const environment = buildEnvironment({
      baseUrl: deps.baseUrl,
      integration,
      owner: ownerOf(integration),
      shapes,
      installation,
      ...(parent !== undefined ? { parent } : {}),
      tokens: {
        integration: integrationToken(integration.name),
        installation: deriveInstallationToken(deps.tokenSecret, installation.id),
      },
      signingSecrets: {
        integration: signing('integration', integration.name),
        ...(organizationInstallation !== undefined
          ? { installation: signing('installation', organizationInstallation.id) }
          : {}),
        ...(installation.target === 'space' ? { spaceInstallation: signing('installation', installation.id) } : {}),
        ...(installation.target === 'site' ? { siteInstallation: signing('installation', installation.id) } : {}),
      },
    });
    perInstallation.set(installation, { parent, environment });
    return environment;
  };
  const integrationEnvironmentOf = (integration: LoadedIntegration): Record<string, unknown> => {
    let environment = integrationEnvironments.get(integration);
    if (environment === undefined) {
      environment = buildEnvironment({
        baseUrl: deps.baseUrl,
        integration,
        owner: ownerOf(integration),
        shapes,
        tokens: { integration: integrationToken(integration.name) },
        signingSecrets: { integration: signing('integration', integration.name) },
      });
      integrationEnvironments.set(integration, environment);
    }
    return environment;
  };

  const dispatch = async (
    integration: LoadedIntegration & { bundle: NonNullable<LoadedIntegration['bundle']> },
    event: SandboxEvent,
    environment: Record<string, unknown>,
    fetchBody: Uint8Array | null,
    options: DispatchOptions = {},
  ): Promise<DispatchOutcome> => {
    // Read in the same turn as the sandbox is handed the dispatch: a published version is swapped into the
    // registry and the sandbox together, so this names the version that runs it.
    const version = deps.registry.get(integration.name)?.published?.version;
    const meta = {
      eventId: event.eventId,
      integration: integration.name,
      installationId: event.installationId ?? '',
      type: event.type,
      ...(version !== undefined ? { version } : {}),
    };
    const outcome = await recordDispatch(
      deps.eventLog,
      deps.now,
      meta,
      () => deps.sandbox.dispatch(integration.name, { event, environment, fetchBody }, options),
      deps.onDispatched,
    );
    const { verdict, ...response } = outcome.response;
    return {
      response,
      ...(verdict !== undefined ? { verdict } : {}),
      durationMs: outcome.durationMs,
      logs: outcome.logs,
      ...(outcome.body !== undefined ? { body: outcome.body } : {}),
    };
  };

  return {
    async run(installation, event, fetchBody, options) {
      const integration = runnable(deps.registry, installation.integration);
      const fullEvent = {
        ...event,
        eventId: event.eventId ?? newEventId(),
        installationId: installation.id,
      } as SandboxEvent;
      return dispatch(integration, fullEvent, await environmentOf(integration, installation), fetchBody, options);
    },

    async prepare(installation) {
      const integration = deps.registry.get(installation.integration);
      if (integration === undefined || integration.status !== 'ready' || integration.bundle === undefined) return false;
      deps.sandbox.prepareEnvironment?.(await environmentOf(integration, installation));
      return true;
    },

    async runForIntegration(name, event, fetchBody, options) {
      const integration = runnable(deps.registry, name);
      const { installationId: _ignored, ...rest } = event as DispatchEvent & { installationId?: unknown };
      const fullEvent = { ...rest, eventId: event.eventId ?? newEventId() } as SandboxEvent;
      return dispatch(integration, fullEvent, integrationEnvironmentOf(integration), fetchBody, options);
    },
  };
}
