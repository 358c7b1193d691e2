// The platform API dispatcher: matches a request against the route table, authenticates the
// installation token, authorizes scope and resource (authorize.ts) and runs the handler. The
// same function serves HTTP and the sandbox bridge; it never trusts anything but the token.

import { HostError, isHostError } from '../common/errors.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { Logger } from '../common/logger.ts';
import type { Installation } from '../installations/model.ts';
import { authorize, type InstallationLookup } from './authorize.ts';
import { jsonTextTooDeep, tooDeepMessage } from '../common/json-depth.ts';
import type { ApiCaller, ApiRequest, ApiResponse, ApiRoute } from './types.ts';
import type { ResourceDirectory } from '../platform-data/records.ts';

const MAX_API_BODY_BYTES = 1024 * 1024;

export interface PlatformApiOptions<Deps> {
  routes: ApiRoute<Deps>[];
  deps: Deps;
  directory: ResourceDirectory;
  installations: InstallationLookup;
  /**
   * Who a token is: the installation an installation token belongs to (valid and not revoked), or
   * the integration an integration token names; undefined for anything else.
   */
  resolveToken(token: string): Promise<{ installation: Installation } | { integration: string } | undefined>;
  getIntegration(name: string): LoadedIntegration | undefined;
  log: Logger;
}

export interface PlatformApi {
  /**
   * `from.integration` is set on the bridge path: the token must then belong to an installation
   * of that very integration, so a guest holding another integration's token gets nothing.
   */
  handle(request: ApiRequest, from?: { integration?: string }): Promise<ApiResponse>;
  /** Whether `token` is a live host API token (an installation's or an integration's), as `handle` would accept it. */
  isHostToken(token: string): Promise<boolean>;
}

interface CompiledRoute<Deps> {
  route: ApiRoute<Deps>;
  segments: string[];
}

function matchSegments(pattern: string[], path: string[]): Record<string, string> | null {
  if (pattern.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(path[i]);
      } catch {
        return null;
      }
      if (value === '') return null;
      params[pattern[i].slice(1)] = value;
    } else if (pattern[i] !== path[i]) return null;
  }
  return params;
}

function json(status: number, body: unknown, headers: [string, string][] = []): ApiResponse {
  const bytes = body === undefined ? new Uint8Array(0) : new TextEncoder().encode(JSON.stringify(body));
  return {
    status,
    headers: [
      ...(body === undefined ? [] : [['content-type', 'application/json; charset=utf-8'] as [string, string]]),
      ...headers,
    ],
    body: bytes,
  };
}

/** The token of an `Authorization: Bearer <token>` value; the one parsing the API and the HTTP layer share. */
export function parseBearer(value: string | undefined): string | undefined {
  return value?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

function bearerToken(headers: [string, string][]): string | undefined {
  return parseBearer(headers.find(([name]) => name.toLowerCase() === 'authorization')?.[1]);
}

function parseBody(request: ApiRequest): unknown {
  if (request.body === null || request.body.length === 0) return undefined;
  if (request.body.length > MAX_API_BODY_BYTES)
    throw new HostError('ERR_PAYLOAD_TOO_LARGE', `request body exceeds ${MAX_API_BODY_BYTES} bytes`);
  const text = new TextDecoder().decode(request.body);
  if (jsonTextTooDeep(text))
    throw new HostError('ERR_VALIDATION', `request body ${tooDeepMessage()}`, [
      { pointer: '', message: tooDeepMessage() },
    ]);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HostError('ERR_BAD_REQUEST', `request body is not valid JSON: ${(error as Error).message}`);
  }
}

export function createPlatformApi<Deps>(options: PlatformApiOptions<Deps>): PlatformApi {
  const compiled: CompiledRoute<Deps>[] = options.routes.map((route) => ({
    route,
    segments: route.pattern.split('/').filter(Boolean),
  }));

  async function authenticate(request: ApiRequest, from?: { integration?: string }): Promise<ApiCaller> {
    const token = bearerToken(request.headers);
    if (token === undefined)
      throw new HostError(
        'ERR_UNAUTHORIZED',
        'an installation token is required (Authorization: Bearer <apiTokens.installation>)',
      );
    const owner = await options.resolveToken(token);
    const installation = owner !== undefined && 'installation' in owner ? owner.installation : undefined;
    const name =
      installation?.integration ?? (owner !== undefined && 'integration' in owner ? owner.integration : undefined);
    const integration = name === undefined ? undefined : options.getIntegration(name);
    const foreign = from?.integration !== undefined && name !== from.integration;
    // An unloaded integration's token opens nothing.
    if (integration === undefined || integration.status !== 'ready' || foreign) {
      throw new HostError('ERR_UNAUTHORIZED', 'invalid or revoked installation token');
    }
    return installation === undefined ? { integration } : { installation, integration };
  }

  async function run(request: ApiRequest, from?: { integration?: string }): Promise<ApiResponse> {
    const url = new URL(request.path, 'http://platform.invalid');
    const segments = url.pathname.split('/').filter(Boolean);
    const method = request.method.toUpperCase();
    let allowed: string[] = [];
    for (const { route, segments: pattern } of compiled) {
      const params = matchSegments(pattern, segments);
      if (params === null) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const caller = await authenticate(request, from);
      if (route.caller === 'integration' && caller.installation !== undefined) {
        throw new HostError('ERR_FORBIDDEN', 'only the integration token (apiTokens.integration) may call this route');
      }
      const target = await authorize(caller, route.scope, route.resource(params), {
        directory: options.directory,
        installations: options.installations,
      });
      const result = await route.handle({
        params,
        query: url.searchParams,
        body: parseBody(request),
        caller,
        ...(target !== undefined ? { target } : {}),
        deps: options.deps,
      });
      return json(result.status, result.body, result.headers);
    }
    allowed = [...new Set(allowed)];
    if (allowed.length > 0)
      return json(405, new HostError('ERR_METHOD_NOT_ALLOWED', `${method} is not allowed here`).toBody(), [
        ['allow', allowed.join(', ')],
      ]);
    throw new HostError('ERR_NOT_FOUND', `no platform API route for ${method} ${url.pathname}`);
  }

  return {
    async isHostToken(token) {
      return (await options.resolveToken(token)) !== undefined;
    },
    async handle(request, from) {
      try {
        return await run(request, from);
      } catch (error) {
        // RFC 6750: a 401 names the scheme it wants, on HTTP and the bridge alike.
        if (isHostError(error))
          return json(
            error.status,
            error.toBody(),
            error.code === 'ERR_UNAUTHORIZED' ? [['www-authenticate', 'Bearer']] : [],
          );
        options.log.error(
          `platform API ${request.method} ${request.path} failed: ${(error as Error).stack ?? String(error)}`,
        );
        return json(500, new HostError('ERR_INTERNAL', 'internal error').toBody());
      }
    },
  };
}
