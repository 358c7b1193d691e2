// GitBook's Space and Site objects (spec schemas `Space`, `Site`) for the platform's records, as
// its API answers them to integrations. Pure. What this platform has no notion of (change
// requests, comments, emoji, plans, site features) is reported as absent, empty or zero.

import type { PageSummary, SiteRecord, SpaceRecord } from '../platform-data/records.ts';
import { revisionIdOf } from '../platform-data/revisions.ts';
import { UNKNOWN_CREATED_AT } from './organization.ts';

/** When the space last changed: its newest page's update, else unknown. */
function lastUpdate(pages: readonly PageSummary[]): string {
  return pages.reduce((latest, page) => (page.updatedAt > latest ? page.updatedAt : latest), UNKNOWN_CREATED_AT);
}

/** The fields GitBook's Space has beyond this platform's own space record (which keeps its own fields). */
export function gitbookSpaceFields(
  baseUrl: string,
  space: SpaceRecord,
  pages: readonly PageSummary[],
): Record<string, unknown> {
  const location = `${baseUrl}/v1/spaces/${encodeURIComponent(space.id)}`;
  return {
    object: 'space',
    emoji: '',
    // The current revision's id, derived from the pages as they are (platform/revisions.ts).
    revision: revisionIdOf(pages),
    createdAt: UNKNOWN_CREATED_AT,
    updatedAt: lastUpdate(pages),
    comments: 0,
    changeRequests: 0,
    changeRequestsOpen: 0,
    changeRequestsDraft: 0,
    mergeRules: { type: 'inherit' },
    defaultLevel: 'inherit',
    urls: { location, app: location },
    // What the caller (an integration) may do with the space besides the API routes its scopes open.
    permissions: {
      view: true,
      access: false,
      admin: false,
      viewInviteLinks: false,
      edit: false,
      triggerGitSync: false,
      comment: false,
      merge: false,
      review: false,
      installIntegration: false,
    },
  };
}

/**
 * GitBook's Site for one of the platform's sites. `adaptive`: whether adaptive content is set up (claims or a schema).
 */
export function gitbookSite(baseUrl: string, site: SiteRecord, adaptive: boolean): Record<string, unknown> {
  const location = `${baseUrl}/v1/orgs/${encodeURIComponent(site.organization)}/sites/${encodeURIComponent(site.id)}`;
  return {
    object: 'site',
    id: site.id,
    organization: site.organization,
    title: site.title,
    type: 'basic',
    appliedType: 'basic',
    visibility: 'public',
    defaultLevel: 'inherit',
    published: true,
    createdAt: UNKNOWN_CREATED_AT,
    siteSpaces: site.spaces.length,
    spaces: site.spaces,
    features: [],
    adaptiveContent: { enabled: adaptive },
    urls: { location, app: location, preview: location },
    permissions: {
      view: true,
      access: false,
      edit: false,
      create: false,
      admin: false,
      installIntegration: false,
      viewAdaptiveSchema: true,
      editAdaptiveSchema: true,
    },
  };
}
