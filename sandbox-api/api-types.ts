// The JSON shapes of the platform API (docs/platform-api.md) as integration code sees them through
// `context.api`. Types only, no host imports.

export interface ApiSpace {
  id: string;
  organization: string;
  title: string;
  visibility: 'public' | 'unlisted' | 'private';
  description: string;
  metadata: Record<string, unknown>;
}

export type ApiSpacePatch = Partial<Pick<ApiSpace, 'title' | 'description' | 'visibility'>>;

export interface ApiPageSummary {
  id: string;
  title: string;
  revision: number;
  updatedAt: string;
}

export interface ApiPage extends ApiPageSummary {
  spaceId: string;
  markdown: string;
}

export interface ApiPageList {
  spaceId: string;
  items: ApiPageSummary[];
}

export interface ApiGitSync {
  id: string;
  spaceId: string;
  installationId: string;
  status: 'queued';
  createdAt: string;
}

export interface ApiSite {
  id: string;
  organization: string;
  title: string;
  spaces: string[];
}

export interface ApiSiteView {
  id: string;
  siteId: string;
  spaceId: string | null;
  pageId: string | null;
  url: string;
  visitorId: string;
  viewedAt: string;
}

/** Newest first; pass `next` back as `cursor` for the following page (null: no more). */
export interface ApiSiteViews {
  siteId: string;
  items: ApiSiteView[];
  next: string | null;
}

export interface ApiAdaptiveClaims {
  siteId: string;
  claims: Record<string, unknown>;
  updatedAt: string | null;
}

export interface ApiOpenApiSpec {
  siteId: string;
  spec: Record<string, unknown> | string | null;
  updatedAt: string | null;
}

export interface ApiConversationInput {
  spaceId?: string;
  siteId?: string;
  messages: { role: 'user' | 'assistant' | 'system'; content: string }[];
}

export interface ApiConversation {
  id: string;
  organization: string;
  spaceId: string | null;
  siteId: string | null;
  messages: number;
  createdAt: string;
}
