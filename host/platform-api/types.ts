// Types of the platform API (docs/platform-api.md): one request/response shape for both paths (HTTP with
// an installation token, and guest fetch/context.api over the sandbox bridge), and the route
// table entries every operation is declared with. Types only.

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

/** Who is calling: resolved from the installation token, never from anything else in the request. */
export interface ApiCaller {
  installation: Installation;
  integration: LoadedIntegration;
}

/** The resource a route touches; authorization checks it lies inside the caller's installation. */
export type ResourceRef = { kind: 'space'; id: string } | { kind: 'site'; id: string } | { kind: 'own-installation' } | { kind: 'organization' };

export interface RouteContext<Deps> {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  caller: ApiCaller;
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
  resource(params: Record<string, string>): ResourceRef;
  handle(context: RouteContext<Deps>): Promise<RouteResult> | RouteResult;
}
