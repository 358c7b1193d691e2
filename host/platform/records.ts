// The platform data behind a small interface (docs/platform-api.md): spaces with pages, sites with views,
// OpenAPI specs, adaptive claims, and the records integrations write. It is also the resource
// directory authorization asks. Never decides who may do what (authorize.ts does).

import type { PlatformData } from './data.ts';

/** What authorization and event routing need to know about the platform's resources. */
export interface ResourceDirectory {
  /** The organization owning a space, or undefined when the space does not exist. */
  spaceOrganization(spaceId: string): string | undefined;
  /** A site's organization and spaces, or undefined when the site does not exist. */
  siteInfo(siteId: string): { organization: string; spaces: string[] } | undefined;
}

export type SpaceVisibility = 'public' | 'unlisted' | 'private';

export interface SpaceRecord {
  id: string;
  organization: string;
  title: string;
  visibility: SpaceVisibility;
  description: string;
  metadata: Record<string, unknown>;
}

export type SpacePatch = Partial<Pick<SpaceRecord, 'title' | 'description' | 'visibility'>>;

export interface PageSummary {
  id: string;
  title: string;
  revision: number;
  updatedAt: string;
}

export interface PageRecord extends PageSummary {
  spaceId: string;
  markdown: string;
}

export interface SiteRecord {
  id: string;
  organization: string;
  title: string;
  spaces: string[];
}

export interface SiteView {
  id: string;
  siteId: string;
  spaceId: string | null;
  pageId: string | null;
  url: string;
  visitorId: string;
  viewedAt: string;
}

export interface PageFeedback {
  id: string;
  siteId: string;
  spaceId: string;
  pageId: string;
  rating: string;
  comment: string;
  createdAt: string;
}

/** `spec` is what was written: a JSON object, or the text of a YAML/JSON document; null when none yet. */
export interface OpenApiSpec {
  siteId: string;
  spec: Record<string, unknown> | string | null;
  updatedAt: string | null;
}

export interface AdaptiveClaims {
  siteId: string;
  claims: Record<string, unknown>;
  updatedAt: string | null;
}

export interface GitSyncRecord {
  id: string;
  spaceId: string;
  installationId: string;
  status: 'queued';
  createdAt: string;
}

export interface ConversationRecord {
  id: string;
  organization: string;
  installationId: string;
  spaceId: string | null;
  siteId: string | null;
  messages: { role: string; content: string }[];
  createdAt: string;
}

/** A page of a list, newest first; `next` is the opaque cursor of the following page. */
export interface Paginated<T> {
  items: T[];
  next: string | null;
}

export interface PlatformStore extends ResourceDirectory {
  /** Inserts the rows of `data` that do not exist yet; never overwrites stored rows. */
  seed(data: PlatformData): void;
  getSpace(id: string): SpaceRecord | undefined;
  updateSpace(id: string, patch: SpacePatch): SpaceRecord | undefined;
  listPages(spaceId: string): PageSummary[];
  getPage(spaceId: string, pageId: string): PageRecord | undefined;
  /** Creates the page (revision 1, title defaults to its id) or updates it (revision + 1). */
  putPage(spaceId: string, pageId: string, input: { title?: string; markdown: string }): { page: PageRecord; created: boolean };
  recordGitSync(spaceId: string, installationId: string): GitSyncRecord;
  getSite(id: string): SiteRecord | undefined;
  /** `cursor` must be a `next` this method returned; undefined starts at the newest view. */
  listSiteViews(siteId: string, options: { limit: number; cursor?: string }): Paginated<SiteView>;
  listPageFeedback(siteId: string): PageFeedback[];
  getOpenApi(siteId: string): OpenApiSpec;
  putOpenApi(siteId: string, spec: Record<string, unknown> | string): OpenApiSpec;
  getAdaptive(siteId: string): AdaptiveClaims;
  putAdaptive(siteId: string, claims: Record<string, unknown>): AdaptiveClaims;
  recordConversation(input: Omit<ConversationRecord, 'id' | 'createdAt'>): ConversationRecord;
}
