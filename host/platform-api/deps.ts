// What platform API route handlers may use. Each capability adds its own typed field here;
// handlers receive this object through RouteContext.deps and never reach the store or sandbox otherwise.

import type { PlatformStore, ResourceDirectory } from '../platform/records.ts';
import type { OAuthStates } from '../installations/oauth-state.ts';
import type { ConnectTickets } from '../installations/connect-ticket.ts';
import type { InstallationView } from '../installations/model.ts';

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
  /** Spaces, pages, sites, views, OpenAPI specs, adaptive claims, git syncs, conversations. */
  platform: PlatformStore;
  /** Which organization owns each space and site: for checks of resources named in a body. */
  directory: ResourceDirectory;
  /** OAuth `state` values: issued to and consumed by the calling installation only (routes/installation-self.ts). */
  oauthStates: OAuthStates;
  /** A state is issued only for a connect ticket an admin view minted for that installation. */
  connectTickets: ConnectTickets;
  /** The installation's own configuration edit (what its OAuth flow obtained); validated like the admin PATCH. */
  updateOwnConfiguration(installationId: string, patch: Record<string, unknown>): Promise<InstallationView>;
}
