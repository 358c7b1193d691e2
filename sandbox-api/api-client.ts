// `context.api`: a typed client over the platform API (docs/platform-api.md), using the isolate's fetch to
// environment.apiEndpoint with the installation token (the host answers it in-process, never over
// the network). Part of the sandbox-api the runtime provides to bundles: self-contained, no host imports.

import type {
  ApiAdaptiveClaims,
  ApiConversation,
  ApiConversationInput,
  ApiGitSync,
  ApiOpenApiSpec,
  ApiPage,
  ApiPageList,
  ApiSite,
  ApiSiteViews,
  ApiSpace,
  ApiSpacePatch,
} from './api-types.ts';

/** A non-2xx answer of the platform API: `code` is the host's ERR_* code (e.g. ERR_SCOPE_DENIED). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

export interface ApiClient {
  spaces: {
    get(spaceId: string): Promise<ApiSpace>;
    update(spaceId: string, patch: ApiSpacePatch): Promise<ApiSpace>;
    listPages(spaceId: string): Promise<ApiPageList>;
    getPage(spaceId: string, pageId: string): Promise<ApiPage>;
    putPage(spaceId: string, pageId: string, page: { title?: string; markdown: string }): Promise<ApiPage>;
    startGitSync(spaceId: string): Promise<ApiGitSync>;
  };
  sites: {
    get(siteId: string): Promise<ApiSite>;
    listViews(siteId: string, page?: { limit?: number; cursor?: string }): Promise<ApiSiteViews>;
    getAdaptive(siteId: string): Promise<ApiAdaptiveClaims>;
    putAdaptive(siteId: string, claims: Record<string, unknown>): Promise<ApiAdaptiveClaims>;
    getOpenApi(siteId: string): Promise<ApiOpenApiSpec>;
    putOpenApi(siteId: string, spec: Record<string, unknown> | string): Promise<ApiOpenApiSpec>;
  };
  conversations: {
    ingest(conversation: ApiConversationInput): Promise<ApiConversation>;
  };
}

interface ClientEnvironment {
  apiEndpoint?: string;
  apiTokens?: Record<string, string>;
}

const id = (value: string): string => encodeURIComponent(value);

async function errorFrom(response: Response): Promise<ApiError> {
  let code = `HTTP_${response.status}`;
  let message = `platform API answered ${response.status}`;
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body?.error?.code === 'string') code = body.error.code;
    if (typeof body?.error?.message === 'string') message = body.error.message;
  } catch {
    // Not the host's JSON error shape: keep the generic code and message.
  }
  return new ApiError(response.status, code, message);
}

export function createApiClient(environment: ClientEnvironment): ApiClient {
  // Read at call time so a client made for an environment without an API fails only when used.
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const endpoint = environment.apiEndpoint;
    const token = environment.apiTokens?.installation;
    if (!endpoint || !token)
      throw new ApiError(0, 'ERR_NO_API', 'this environment has no platform API endpoint or installation token');
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${endpoint.replace(/\/+$/, '')}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw await errorFrom(response);
    return (await response.json()) as T;
  }

  return {
    spaces: {
      get: (spaceId) => call('GET', `/v1/spaces/${id(spaceId)}`),
      update: (spaceId, patch) => call('PATCH', `/v1/spaces/${id(spaceId)}`, patch),
      listPages: (spaceId) => call('GET', `/v1/spaces/${id(spaceId)}/content`),
      getPage: (spaceId, pageId) => call('GET', `/v1/spaces/${id(spaceId)}/content/pages/${id(pageId)}`),
      putPage: (spaceId, pageId, page) => call('PUT', `/v1/spaces/${id(spaceId)}/content/pages/${id(pageId)}`, page),
      startGitSync: (spaceId) => call('POST', `/v1/spaces/${id(spaceId)}/git/sync`, {}),
    },
    sites: {
      get: (siteId) => call('GET', `/v1/sites/${id(siteId)}`),
      listViews(siteId, page = {}) {
        const query = new URLSearchParams();
        if (page.limit !== undefined) query.set('limit', String(page.limit));
        if (page.cursor !== undefined) query.set('cursor', page.cursor);
        const search = query.toString();
        return call('GET', `/v1/sites/${id(siteId)}/views${search ? `?${search}` : ''}`);
      },
      getAdaptive: (siteId) => call('GET', `/v1/sites/${id(siteId)}/adaptive`),
      putAdaptive: (siteId, claims) => call('PUT', `/v1/sites/${id(siteId)}/adaptive`, { claims }),
      getOpenApi: (siteId) => call('GET', `/v1/sites/${id(siteId)}/openapi`),
      putOpenApi: (siteId, spec) => call('PUT', `/v1/sites/${id(siteId)}/openapi`, { spec }),
    },
    conversations: {
      ingest: (conversation) => call('POST', '/v1/conversations', conversation),
    },
  };
}
