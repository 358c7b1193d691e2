// Runs one event for one installation: the envelope (event id, the environment built from the
// host's own records), the sandbox call, the event-log record and the runtime's typed verdict.
// Never takes secrets, tokens or scopes from a request; the caller hands in the record it found.

import { randomUUID } from 'node:crypto';
import { HostError } from '../common/errors.ts';
import type { Installation } from '../installations/model.ts';
import { deriveInstallationToken } from '../installations/tokens.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { Envelope, RuntimeVerdict, SandboxEvent, SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
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
}

/** What the dispatcher needs of the sandbox (the supervisor). */
export interface SandboxRunner {
  dispatch(integration: string, envelope: Envelope): Promise<{ response: SandboxResponse; logs: { level: string; text: string }[]; durationMs: number }>;
}

export interface Dispatcher {
  run(installation: Installation, event: DispatchEvent, fetchBody: Uint8Array | null): Promise<DispatchOutcome>;
}

export interface DispatcherDeps {
  registry: IntegrationRegistry;
  sandbox: SandboxRunner;
  eventLog: EventLog;
  /** The secret installation tokens are derived from. */
  tokenSecret: string;
  baseUrl: string;
  now(): number;
  /** Told about every settled dispatch (metrics). */
  onDispatched?: DispatchObserver;
}

export function newEventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

function runnable(registry: IntegrationRegistry, installation: Installation): LoadedIntegration & { bundle: NonNullable<LoadedIntegration['bundle']> } {
  const integration = registry.get(installation.integration);
  if (integration === undefined || integration.status !== 'ready') {
    throw new HostError('ERR_INTEGRATION_INVALID', `integration "${installation.integration}" is not loaded`);
  }
  if (integration.bundle === undefined) throw new HostError('ERR_INTEGRATION_INVALID', `integration "${integration.name}" has no script to run`);
  return integration as LoadedIntegration & { bundle: NonNullable<LoadedIntegration['bundle']> };
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  // An installation record is replaced (never mutated) when it changes, and so is an integration
  // when the dev loop reloads it: the environment is built once per (integration, record) pair;
  // the supervisor then sends it to a worker only when it is new there.
  const environments = new WeakMap<LoadedIntegration, WeakMap<Installation, Record<string, unknown>>>();
  const environmentOf = (integration: LoadedIntegration, installation: Installation): Record<string, unknown> => {
    let perInstallation = environments.get(integration);
    if (perInstallation === undefined) environments.set(integration, (perInstallation = new WeakMap()));
    let environment = perInstallation.get(installation);
    if (environment === undefined) {
      const installationToken = deriveInstallationToken(deps.tokenSecret, installation.id);
      environment = buildEnvironment({ baseUrl: deps.baseUrl, integration, installation, installationToken });
      perInstallation.set(installation, environment);
    }
    return environment;
  };

  return {
    async run(installation, event, fetchBody) {
      const integration = runnable(deps.registry, installation);
      const fullEvent = { ...event, eventId: event.eventId ?? newEventId(), installationId: installation.id } as SandboxEvent;
      const environment = environmentOf(integration, installation);
      const meta = { eventId: fullEvent.eventId, integration: integration.name, installationId: installation.id, type: fullEvent.type };
      const outcome = await recordDispatch(deps.eventLog, deps.now, meta, () => deps.sandbox.dispatch(integration.name, { event: fullEvent, environment, fetchBody }), deps.onDispatched);
      const { verdict, ...response } = outcome.response;
      return { response, ...(verdict !== undefined ? { verdict } : {}), durationMs: outcome.durationMs, logs: outcome.logs };
    },
  };
}
