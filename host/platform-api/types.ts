// Types of the platform API (docs/platform-api.md): one request/response shape for both paths (HTTP with
// an installation token, and guest fetch/context.api over the sandbox bridge), and the route
// table entries every operation is declared with. Types only.

import { HostError } from '../common/errors.ts';
import type { Installation } from '../installations/model.ts';
import type { LoadedIntegration, Scope } from '../manifest/types.ts';

export interface ApiRequest {
  method: string;
  /** Path and query, no origin: `/v1/spaces/space_1/content?limit=10`. */
  path: string;
  headers: [string, string][];
  body: Uint8Array | null;
}

export interface ApiResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * Who is calling: resolved from the token alone, never from anything else in the request. An
 * installation token acts as its installation; the integration token (GitBook's
 * `apiTokens.integration`) as the integration, with no installation.
 */
export interface ApiCaller {
  integration: LoadedIntegration;
  /** Absent for the integration token. */
  installation?: Installation;
}

/** The caller's installation, for routes an installation calls about itself; 403 for the integration token. */
export function installationOf(caller: ApiCaller): Installation {
  if (caller.installation === undefined)
    throw new HostError(
      'ERR_FORBIDDEN',
      'this route acts for an installation: call it with an installation token (apiTokens.installation)',
    );
  return caller.installation;
}

/**
 * The resource a route touches; authorization checks it lies inside the caller's reach (docs/platform-api.md):
 * - `space`, `site`: covered by the caller's installation;
 * - `own-installation`, `organization`: the caller's installation itself / its organization;
 * - `integration`: the caller's own integration, by name;
 * - `installation`: an installation of the caller's integration the caller may act on;
 * - `content-installation`: the space or site installation under organization installation `id`;
 * - `organization-site`: a site of organization `organization` covered by the caller's installation;
 * - `organization-id`: the organization of the caller's installation.
 */
export type ResourceRef =
  | { kind: 'space'; id: string }
  | { kind: 'site'; id: string }
  | { kind: 'own-installation' }
  | { kind: 'organization' }
  | { kind: 'integration'; name: string }
  | { kind: 'installation'; name: string; id: string }
  | { kind: 'content-installation'; name: string; id: string; content: 'space' | 'site'; contentId: string }
  | { kind: 'organization-site'; organization: string; site: string }
  | { kind: 'organization-id'; id: string };

export interface RouteContext<Deps> {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  caller: ApiCaller;
  /** The installation an `installation` or `content-installation` resource resolved to. */
  target?: Installation;
  deps: Deps;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: [string, string][];
}

export interface ApiRoute<Deps> {
  method: 'GET' | 'PUT' | 'PATCH' | 'POST' | 'DELETE';
  /** Segments with `:name` parameters, e.g. `/v1/spaces/:space/content/pages/:page`. */
  pattern: string;
  /** The scope the operation needs; null for an installation's operations on itself. */
  scope: Scope | null;
  /** `integration`: only the integration token may call it (GitBook's integration-only operations). */
  caller?: 'integration';
  resource(params: Record<string, string>): ResourceRef;
  handle(context: RouteContext<Deps>): Promise<RouteResult> | RouteResult;
}
