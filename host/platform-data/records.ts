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

/** GitBook's adaptive-content schema of a site: a JSON Schema of the claims its visitors may carry. */
export interface AdaptiveSchema {
  siteId: string;
  jsonSchema: Record<string, unknown>;
  updatedAt: string;
}

export interface GitSyncRecord {
  id: string;
  spaceId: string;
  installationId: string;
  status: 'queued';
  createdAt: string;
}

/**
 * What an integration asked of a Git import or export (GitBook's `importGitRepository` /
 * `exportToGitRepository`), as recorded: the repository URL never keeps its credentials.
 */
export interface GitRepositoryRequest {
  /** The repository URL without user name or password. */
  url: string;
  /** Whether the URL the integration sent carried credentials (they are not kept). */
  credentials: boolean;
  ref: string;
  commitMessage?: string;
  repoTreeURL?: string;
  repoCommitURL?: string;
  repoProjectDirectory?: string;
  timestamp?: string;
  force?: boolean;
  standalone?: boolean;
  /** For an export: the space revision current when it was asked for. */
  revision?: string;
}

/** A recorded Git request of any kind: `sync` (this platform's git/sync), `import` or `export`. */
export interface GitRequestRecord extends GitSyncRecord {
  kind: 'sync' | 'import' | 'export';
  /** What an import or export asked for; null for a sync. */
  request: GitRepositoryRequest | null;
}

/** Which version of a page a space revision holds. */
export interface RevisionPageRef {
  id: string;
  revision: number;
}

/**
 * One recorded state of a space's content: the version of each of its pages, in page order. Every
 * page write records one; its id is derived from those versions (host/gitbook/content.ts), so a
 * space's current revision is always the id of its pages as they are.
 */
export interface SpaceRevision {
  id: string;
  spaceId: string;
  /** The revision it was made from; null for the first one recorded. */
  parent: string | null;
  pages: RevisionPageRef[];
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

/**
 * The platform's records. Every method may cross a network (PostgreSQL). Spaces and sites are
 * created only by seeding and never change organization, so the directory is read once, after
 * seeding, and answered from memory: authorization costs no round trip.
 */
export interface PlatformStore {
  /**
   * Inserts the rows of `data` that do not exist yet; never overwrites stored rows. Then records a
   * revision for every space whose pages are not its newest recorded revision (a new database, or
   * pages the data added).
   */
  seed(data: PlatformData): Promise<void>;
  /** Which organization owns each space and site, as stored now. */
  loadDirectory(): Promise<ResourceDirectory>;
  getSpace(id: string): Promise<SpaceRecord | undefined>;
  updateSpace(id: string, patch: SpacePatch): Promise<SpaceRecord | undefined>;
  listPages(spaceId: string): Promise<PageSummary[]>;
  getPage(spaceId: string, pageId: string): Promise<PageRecord | undefined>;
  /**
   * Creates the page (revision 1, title defaults to its id) or updates it (revision + 1), and
   * records the space's new revision, atomically.
   */
  putPage(
    spaceId: string,
    pageId: string,
    input: { title?: string; markdown: string },
  ): Promise<{ page: PageRecord; created: boolean }>;
  recordGitSync(spaceId: string, installationId: string): Promise<GitSyncRecord>;
  /** Records a Git import or export an integration asked for (kept with the syncs, newest 1,000 per space). */
  recordGitRequest(
    spaceId: string,
    installationId: string,
    kind: 'import' | 'export',
    request: GitRepositoryRequest,
  ): Promise<GitRequestRecord>;
  /** The space's recorded Git requests (syncs, imports, exports), newest first. */
  listGitRequests(spaceId: string): Promise<GitRequestRecord[]>;
  /** A revision of the space, while it is among the newest the space keeps. */
  getRevision(spaceId: string, revisionId: string): Promise<SpaceRevision | undefined>;
  /** The space's current revision (its newest). */
  getCurrentRevision(spaceId: string): Promise<SpaceRevision | undefined>;
  /** The page versions `refs` name, in their order; a version no longer held is left out. */
  getPageVersions(spaceId: string, refs: readonly RevisionPageRef[]): Promise<PageRecord[]>;
  getSite(id: string): Promise<SiteRecord | undefined>;
  /** `cursor` must be a `next` this method returned; undefined starts at the newest view. */
  listSiteViews(siteId: string, options: { limit: number; cursor?: string }): Promise<Paginated<SiteView>>;
  listPageFeedback(siteId: string): Promise<PageFeedback[]>;
  getOpenApi(siteId: string): Promise<OpenApiSpec>;
  putOpenApi(siteId: string, spec: Record<string, unknown> | string): Promise<OpenApiSpec>;
  getAdaptive(siteId: string): Promise<AdaptiveClaims>;
  putAdaptive(siteId: string, claims: Record<string, unknown>): Promise<AdaptiveClaims>;
  /** The site's adaptive-content schema (GitBook's), or undefined while none was written. */
  getAdaptiveSchema(siteId: string): Promise<AdaptiveSchema | undefined>;
  putAdaptiveSchema(siteId: string, jsonSchema: Record<string, unknown>): Promise<AdaptiveSchema>;
  recordConversation(input: Omit<ConversationRecord, 'id' | 'createdAt'>): Promise<ConversationRecord>;
  /** Pages of a space and the characters of their Markdown, for the storage quota. */
  spaceContentUsage(spaceId: string): Promise<{ pages: number; markdownChars: number }>;
  /** Conversations an installation ingested and the characters of their messages, for the storage quota. */
  conversationUsage(installationId: string): Promise<{ conversations: number; chars: number }>;
}

/** A directory over fixed maps (what loadDirectory returns). */
export function createResourceDirectory(
  spaces: ReadonlyMap<string, string>,
  sites: ReadonlyMap<string, { organization: string; spaces: string[] }>,
): ResourceDirectory {
  return {
    spaceOrganization: (spaceId) => spaces.get(spaceId),
    siteInfo(siteId) {
      const site = sites.get(siteId);
      return site === undefined ? undefined : { organization: site.organization, spaces: [...site.spaces] };
    },
  };
}
