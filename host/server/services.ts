// The port the HTTP layer consumes: everything a route may ask of the host. assembly/ builds the
// real implementation from the domains; routes reach the sandbox, the stores and the registry only
// through this, so tests can boot a fake and nothing in server/ loads the sandbox itself.

import type { Logger } from '../common/logger.ts';
import type { DispatchEvent, DispatchOptions, DispatchOutcome } from '../dispatch/event-dispatcher.ts';
import type { EventLogEntry, EventLogPage } from '../dispatch/event-log.ts';
import type { EventFollower } from '../dispatch/event-feed.ts';
import type { PublishResult } from '../events/publish.ts';
import type { CreateInstallationInput, Installation, InstallationView } from '../installations/model.ts';
import type { InstallationPage, InstallationQuery } from '../installations/listing.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { PlatformApi } from '../platform-api/router.ts';
import type { DeliveryView } from '../webhooks/delivery-view.ts';
import type { SiteScripts } from '../site-scripts/site-scripts.ts';
import type { IntegrationSecretsView, StoredSecretView } from '../secrets/view.ts';
import type { OAuthSeal } from '../oauth-seal/seal.ts';
import type { OwedEventView } from '../owed-events/view.ts';
import type { PublishingService } from '../publish/service.ts';

/** A queued task as the admin sees it (docs/platform-api.md#tasks): its state, never its payload. */
export interface TaskView {
  id: string;
  eventId: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed';
  attempts: number;
  runAt: string;
  lastStatus?: number;
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}

export interface HostServices {
  readonly adminToken: string;
  readonly log: Logger;
  /** `http://127.0.0.1:<port>`: the base of public endpoints and of the platform API. */
  baseUrl(): string;

  /** The platform API, authenticated by installation token; the HTTP routes pass requests through. */
  readonly platformApi: PlatformApi;

  listIntegrations(): LoadedIntegration[];
  getIntegration(name: string): LoadedIntegration | undefined;

  /** Throws HostError: ERR_INTEGRATION_NOT_FOUND, ERR_INTEGRATION_INVALID, ERR_VALIDATION, ERR_VISIBILITY_DENIED. */
  createInstallation(
    integration: string,
    input: CreateInstallationInput,
  ): Promise<InstallationView & { signingSecret?: string }>;
  /** The installation record, for a route that dispatches to it. Rejects with ERR_INSTALLATION_NOT_FOUND. */
  requireInstallation(id: string): Promise<Installation>;
  /**
   * The same, or undefined (a route that answers the same for "missing" and "someone else's"). Served from memory when
   * cached.
   */
  findInstallation(id: string): Promise<Installation | undefined>;
  /** Installations in creation order, filtered, one page at a time. Rejects with ERR_VALIDATION (cursor). */
  listInstallations(query: InstallationQuery): Promise<InstallationPage>;
  /** The installation's public JSON. Rejects with ERR_INSTALLATION_NOT_FOUND. */
  getInstallation(id: string): Promise<InstallationView>;
  /** Uninstall: removes it and revokes its token. Rejects with ERR_INSTALLATION_NOT_FOUND. */
  deleteInstallation(id: string): Promise<void>;
  /**
   * An admin's configuration edit: properties to set, `null` unsets. Rejects with 422
   * ERR_CONFIGURATION_INVALID listing every property (nothing stored); emits installation_setup.
   */
  updateConfiguration(id: string, patch: Record<string, unknown>): Promise<InstallationView>;
  /** The options a string property's completion_url answers. Throws ERR_NOT_FOUND, ERR_COMPLETION_INVALID (502). */
  completeProperty(id: string, property: string): Promise<{ items: { label: string; value: string }[] }>;
  /** The install link of an unlisted integration (what `installLink` must carry); undefined for the others. */
  installLinkOf(integration: string): string | undefined;
  /** The integration's event log, newest first. Rejects with ERR_INTEGRATION_NOT_FOUND, ERR_VALIDATION (cursor). */
  listEvents(integration: string, page: { limit: number; cursor?: string }): Promise<EventLogPage>;
  /** Rejects with ERR_NOT_FOUND when the integration has no such event. */
  getEvent(integration: string, eventId: string): Promise<EventLogEntry>;
  /**
   * Hands `follower` each new event-log entry of the integration (of one installation when
   * `installationId` is set) until the returned function is called or the host shuts down
   * (follower.end). Rejects with ERR_INTEGRATION_NOT_FOUND / ERR_INSTALLATION_NOT_FOUND before following.
   */
  followEvents(integration: string, filter: { installationId?: string }, follower: EventFollower): Promise<() => void>;
  /** The integration's queued tasks, newest first, without their payloads. Rejects with ERR_INTEGRATION_NOT_FOUND. */
  listTasks(
    integration: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ items: TaskView[]; nextCursor: string | null }>;
  /**
   * The setup events the host owes an installation, newest first (the last `limit`), with their state. Rejects with
   * ERR_INSTALLATION_NOT_FOUND.
   */
  listOwedEvents(installationId: string, limit: number): Promise<{ items: OwedEventView[] }>;

  /**
   * Runs one event for one installation (the record the route looked up): builds the environment
   * from the host's own records, assigns `eventId` when missing, dispatches into the sandbox.
   * Throws HostError with ERR_SANDBOX_TIMEOUT / ERR_SANDBOX_CRASHED / ERR_INTEGRATION_QUARANTINED /
   * ERR_SANDBOX_UNAVAILABLE.
   */
  dispatch(
    installation: Installation,
    event: DispatchEvent,
    fetchBody: Uint8Array | null,
    options?: DispatchOptions,
  ): Promise<DispatchOutcome>;

  /**
   * Runs one event for an integration itself (its integration-level public endpoint), with no
   * installation. Rejects with ERR_INTEGRATION_NOT_FOUND for an unknown or built-in integration,
   * ERR_INTEGRATION_INVALID for one that cannot run, and the sandbox errors of dispatch().
   */
  dispatchToIntegration(
    integration: string,
    event: DispatchEvent,
    fetchBody: Uint8Array | null,
    options?: DispatchOptions,
  ): Promise<DispatchOutcome>;

  /** Sealing of GitBook-runtime OAuth flows on the public endpoints (server/oauth-gate.ts). */
  readonly oauthSeal: OAuthSeal;

  /** Published integrations: uploads, versions, rollbacks and publisher tokens (host/publish/). */
  readonly publishing: PublishingService;

  /** A site's published scripts: the list, and each script (fetch_published_script). */
  readonly siteScripts: SiteScripts;

  /** A file of the integration's `assets/` folder. Rejects with ERR_NOT_FOUND (no such file, or outside it). */
  readIntegrationAsset(integration: string, path: string): Promise<{ bytes: Uint8Array; contentType: string }>;

  /**
   * A platform event from `POST /v1/events`: validated (ERR_VALIDATION naming the field), given an
   * eventId, dispatched to every ready installation whose integration can receive it.
   */
  publishEvent(event: Record<string, unknown>): Promise<PublishResult>;

  /**
   * Webhook deliveries of an installation with every attempt, newest first. Rejects with ERR_INSTALLATION_NOT_FOUND,
   * ERR_VALIDATION (cursor).
   */
  listDeliveries(
    installationId: string,
    page: { limit?: number; cursor?: string | null },
  ): Promise<{ items: DeliveryView[]; nextCursor: string | null }>;
  /** Queues a new delivery of the same event (to the installation's current URL). Rejects with ERR_NOT_FOUND. */
  redeliver(deliveryId: string): Promise<DeliveryView>;
  /** A new signing secret for a webhook installation; the previous one keeps signing during the rotation window. */
  rotateSigningSecret(installationId: string): Promise<{ signingSecret: string }>;

  /**
   * The secrets stored for an integration this host serves: names, when and how set, never a
   * value. Rejects with ERR_INTEGRATION_NOT_FOUND (unknown or built-in).
   */
  listSecrets(integration: string): Promise<IntegrationSecretsView>;
  /**
   * Stores (or replaces) a secret of an integration this host serves, and resolves once the
   * integration serves with it. Rejects with ERR_INTEGRATION_NOT_FOUND, ERR_VALIDATION (name or
   * value), ERR_SECRETS_KEY_MISSING.
   */
  setSecret(
    integration: string,
    name: string,
    value: unknown,
    via: 'api' | 'console',
  ): Promise<{ secret: StoredSecretView; created: boolean; status: 'ready' | 'invalid' }>;
  /**
   * Removes a stored secret; resolves once the integration serves without it. Rejects with ERR_INTEGRATION_NOT_FOUND,
   * ERR_NOT_FOUND.
   */
  unsetSecret(integration: string, name: string): Promise<{ status: 'ready' | 'invalid' }>;

  /**
   * Whether this host can serve now: store reachable, sandbox workers up, not shutting down; each check says why not.
   */
  readiness(): Promise<{ ready: boolean; checks: { store: string; workers: string; host: string } }>;
  /** The Prometheus text exposition of the host's metrics. */
  metrics(): Promise<{ contentType: string; body: string }>;
}
