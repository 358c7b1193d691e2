// GitBook's Organization object (spec schema `Organization`) for an organization of the platform
// data: what integrations see as `environment.integration.owner` and through `GET /v1/orgs/:org`.
// Pure. Fields the platform data has no notion of get documented, truthful defaults.

import type { PlatformOrganization } from '../platform-data/data.ts';
import { organizationLocationOf } from '../installations/urls.ts';

/** When the platform data does not say when an organization was created (docs/operations.md). */
export const UNKNOWN_CREATED_AT = '1970-01-01T00:00:00.000Z';

export function gitbookOrganization(baseUrl: string, organization: PlatformOrganization): Record<string, unknown> {
  const location = organizationLocationOf(baseUrl, organization.id);
  return {
    object: 'organization',
    id: organization.id,
    title: organization.title,
    createdAt: organization.createdAt ?? UNKNOWN_CREATED_AT,
    emailDomains: organization.emailDomains ?? [],
    // This host has no billing, invite links, trials or merge rules.
    plan: organization.plan ?? 'free',
    type: organization.type ?? 'business',
    inviteLinks: false,
    mergeRules: { type: 'none' },
    trial: { status: 'notapplicable', count: 0 },
    urls: { location, app: location },
    // What the caller (an integration) may do with the organization: read it, nothing else.
    permissions: {
      view: true,
      access: false,
      admin: false,
      ownTeam: false,
      createContent: false,
      createOpenAPISpec: false,
      viewBilling: false,
      listMembers: false,
      listTeams: false,
      listIntegrations: false,
      listInstallations: false,
      installIntegration: false,
    },
  };
}
