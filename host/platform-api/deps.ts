// What platform API route handlers may use. Each capability adds its own typed field here;
// handlers receive this object through RouteContext.deps and never reach the store or sandbox otherwise.

import type { PlatformStore, ResourceDirectory } from '../platform-data/records.ts';
import type { OAuthStates } from '../installations/oauth-state.ts';
import type { ConnectTickets } from '../installations/connect-ticket.ts';
import type { Installation, InstallationView } from '../installations/model.ts';
import type { PlatformOrganization } from '../platform-data/data.ts';
import type { InstallationShapeContext } from '../gitbook/installation.ts';
import type { InstallationLookup } from './authorize.ts';
import type { Logger } from '../common/logger.ts';

/** What integrations may store through the API; a write past one is 507 ERR_QUOTA_EXCEEDED. */
export interface ApiQuotas {
  maxPagesPerSpace: number;
  /** Characters of Markdown across a space's pages. */
  maxSpaceContentBytes: number;
  /** Characters of messages across the conversations one installation ingested. */
  maxConversationBytesPerInstallation: number;
}

export interface PlatformApiDeps {
  quotas: ApiQuotas;
  /** Spaces, pages and revisions, sites, views, OpenAPI specs, adaptive claims, Git requests, conversations. */
  platform: PlatformStore;
  /** Which organization owns each space and site: for checks of resources named in a body. */
  directory: ResourceDirectory;
  /** Installation records (cached reads) for checks and the GitBook installation routes. */
  installations: InstallationLookup;
  /** OAuth `state` values: issued to and consumed by the calling installation only (routes/installation-self.ts). */
  oauthStates: OAuthStates;
  /** A state is issued only for a connect ticket an admin view minted for that installation. */
  connectTickets: ConnectTickets;
  /** The installation's own configuration edit (what its OAuth flow obtained); validated like the admin PATCH. */
  updateOwnConfiguration(installationId: string, patch: Record<string, unknown>): Promise<InstallationView>;
  /** The host log: what routes record for the operator (Git requests), never a secret. */
  log: Logger;
  /** What GitBook's API routes need beyond the records above (routes/gitbook-*.ts). */
  gitbook: GitBookApiDeps;
}

export interface GitBookApiDeps {
  baseUrl: string;
  shapes: InstallationShapeContext;
  /** An organization of the platform data, by id. */
  organization(id: string): PlatformOrganization | undefined;
  /** The API token of an installation (what createIntegrationInstallationToken answers). */
  installationToken(installationId: string): string;
  /** Every installation of an integration, oldest first. */
  listInstallations(integration: string): Promise<Installation[]>;
  /** Queues a task of the integration (`{ task, schedule? }`, validated there); 507 when its queue is full. */
  queueTask(integration: string, installationId: string | undefined, body: unknown): Promise<void>;
  /** The integration's own edit: the whole configuration and/or external ids (lifecycle.editFromIntegration). */
  editInstallation(
    installationId: string,
    edit: { configuration?: Record<string, unknown>; externalIds?: string[] },
  ): Promise<Installation>;
}
