// The interfaces the HTTP layer (host/server) consumes. host/index.ts builds the real
// implementations; the server must reach the sandbox, the store and the registry only through
// these, so tests can boot the real thing and nothing in server/ imports isolated-vm.

import type { LoadedIntegration } from './manifest/types.ts';
import type { SandboxEvent, SandboxResponse } from '../sandbox-api/runtime/contract.ts';
import type { PlatformApi } from './platform/api/router.ts';
import type { DeliveryView } from './webhooks/delivery-view.ts';
import type { EventLogEntry, EventLogPage } from './platform/event-log-store.ts';

export type InstallationTarget = 'organization' | 'space' | 'site';
export type InstallationStatus = 'pending' | 'active' | 'paused';

export interface Installation {
  id: string;
  integration: string;
  organization: string;
  target: InstallationTarget;
  space?: string;
  site?: string;
  status: InstallationStatus;
  configuration: Record<string, unknown>;
  /** Organization installations only: every space of the organization, or the listed ones. */
  spaceSelection?: 'all' | string[];
  createdAt: string;
}

/**
 * The public JSON of an installation (DESIGN §4.2): button properties' stored values are shown as
 * "[redacted]"; `urls.buttons` maps each button property to the absolute URL of its callback_url.
 */
export interface InstallationView extends Omit<Installation, 'spaceSelection'> {
  /** Organization installations: every space (`all`) or the selected space ids. */
  space_selection?: 'all' | string[];
  urls: { publicEndpoint: string; buttons: Record<string, string> };
}

export interface CreateInstallationInput {
  organization: string;
  target: InstallationTarget;
  space?: string;
  site?: string;
  installLink?: string;
  /** Organization target only; default 'all'. */
  space_selection?: 'all' | string[];
}

export interface DispatchOutcome {
  response: SandboxResponse;
  durationMs: number;
  logs: { level: string; text: string }[];
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface HostServices {
  readonly adminToken: string;
  readonly log: Logger;
  /** `http://127.0.0.1:<port>` once listening; used for publicEndpoint and apiEndpoint. */
  baseUrl(): string;

  /** The platform API (DESIGN §4.7), authenticated by installation token; the HTTP routes pass requests through. */
  readonly platformApi: PlatformApi;

  listIntegrations(): LoadedIntegration[];
  getIntegration(name: string): LoadedIntegration | undefined;

  /** Throws HostError: ERR_INTEGRATION_NOT_FOUND, ERR_INTEGRATION_INVALID, ERR_VALIDATION, ERR_VISIBILITY_DENIED. */
  createInstallation(integration: string, input: CreateInstallationInput): Promise<InstallationView & { signingSecret?: string }>;
  /** Throws ERR_INSTALLATION_NOT_FOUND. */
  getInstallation(id: string): InstallationView;
  /** Uninstall: removes it and revokes its token. Throws ERR_INSTALLATION_NOT_FOUND. */
  deleteInstallation(id: string): void;
  /**
   * An admin's configuration edit (seed §3): properties to set, `null` unsets. Throws 422
   * ERR_CONFIGURATION_INVALID listing every property (nothing stored); emits installation_setup.
   */
  updateConfiguration(id: string, patch: Record<string, unknown>): InstallationView;
  /** The options a string property's completion_url answers. Throws ERR_NOT_FOUND, ERR_COMPLETION_INVALID (502). */
  completeProperty(id: string, property: string): Promise<{ items: { label: string; value: string }[] }>;
  /** The install link of an unlisted integration (what `installLink` must carry); undefined for the others. */
  installLinkOf(integration: string): string | undefined;
  /** The integration's event log, newest first. Throws ERR_INTEGRATION_NOT_FOUND, ERR_VALIDATION (cursor). */
  listEvents(integration: string, page: { limit: number; cursor?: string }): EventLogPage;
  /** Throws ERR_NOT_FOUND when the integration has no such event. */
  getEvent(integration: string, eventId: string): EventLogEntry;

  /**
   * Runs one event for one installation: builds the environment from the host's own records,
   * assigns `eventId` when missing, and dispatches into the sandbox. Throws HostError with
   * ERR_SANDBOX_TIMEOUT / ERR_SANDBOX_CRASHED / ERR_INTEGRATION_QUARANTINED / ERR_SANDBOX_UNAVAILABLE.
   */
  dispatch(installationId: string, event: Omit<SandboxEvent, 'eventId'> & { eventId?: string }, fetchBody: Uint8Array | null): Promise<DispatchOutcome>;

  /**
   * A platform event from `POST /v1/events`: validated (ERR_VALIDATION naming the field), given an
   * eventId, dispatched to every ready installation whose integration can receive it.
   */
  publishEvent(event: Record<string, unknown>): Promise<{ eventId: string; dispatched: PublishedDispatch[] }>;

  /** Webhook deliveries of an installation with every attempt, newest first. Throws ERR_INSTALLATION_NOT_FOUND, ERR_VALIDATION (cursor). */
  listDeliveries(installationId: string, page: { limit?: number; cursor?: string | null }): { items: DeliveryView[]; nextCursor: string | null };
  /** Queues a new delivery of the same event (to the installation's current URL). Throws ERR_NOT_FOUND. */
  redeliver(deliveryId: string): DeliveryView;
  /** A new signing secret for a webhook installation; the previous one keeps signing during the rotation window. */
  rotateSigningSecret(installationId: string): { signingSecret: string };
}

/** One recipient of a published event: a sandboxed integration's answer status, or a queued webhook delivery. */
export type PublishedDispatch =
  | { installationId: string; integration: string; status: number }
  | { installationId: string; integration: 'webhook'; deliveryId: string; queued: true };
