// What the public endpoints do between the request and the integration's answer, with no Koa in
// it, so that the Koa routes (routes/public-endpoint.ts) and the direct node:http path
// (direct-public-fetch.ts) run the same code: the body limit, the one installation lookup, the
// fetch event with the endpoint's own cookies and no host API token (host-token-guard.ts), the
// sealing of GitBook-runtime OAuth flows (oauth-gate.ts), the dispatch (its body streamed when the
// integration streams it), and the browser isolation of the answer. Never writes to the response: its callers do, each
// its own way.

import type { IncomingMessage } from 'node:http';
import { HostError } from '../common/errors.ts';
import type { SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import type { HostServices } from './services.ts';
import { buildFetchEvent } from './fetch-event.ts';
import { checkDeclaredLength, readBody } from './read-body.ts';
import { cookiesForInstallation, integrationCookieKey, isolateInBrowser } from './browser-isolation.ts';
import { integrationEndpointOf, publicEndpointOf } from '../installations/urls.ts';
import type { Installation } from '../installations/model.ts';
import type { StreamedBody } from '../sandbox/streamed-body.ts';
import { openOAuthGate } from './oauth-gate.ts';
import { refuseHostTokens } from './host-token-guard.ts';

// Methods a fetch Request cannot carry (the WHATWG forbidden methods): the runtime would throw
// building the integration's Request, and the caller's request would come back as its 500.
const UNREPRESENTABLE_METHODS = ['CONNECT', 'TRACE', 'TRACK'];

/** The integration's answer; `stream` is its body when that follows as it is produced (`body` is then empty). */
export type PublicAnswer = SandboxResponse & { stream?: StreamedBody };

export interface PublicFetch {
  /** `ANY /v1/integrations/:name/installations/:id[/...]`; `target` is the path and query as received. */
  installation(req: IncomingMessage, target: string, name: string, id: string): Promise<PublicAnswer>;
  /** `ANY /v1/integrations/:name/integration[/...]`. */
  integration(req: IncomingMessage, target: string, name: string): Promise<PublicAnswer>;
}

/** The answer as its caller writes it: the body stream, when there is one, beside the response. */
function answerOf(response: SandboxResponse, stream: StreamedBody | undefined): PublicAnswer {
  return stream === undefined ? response : { ...response, stream };
}

/**
 * The fetch event of a public request: its own cookies only (`cookieKey` is the endpoint's
 * namespace), and refused if what it would hand the integration carries a host API token.
 */
async function fetchEventOf(
  req: IncomingMessage,
  target: string,
  services: HostServices,
  installationId: string,
  cookieKey: string,
) {
  const method = req.method ?? 'GET';
  if (UNREPRESENTABLE_METHODS.includes(method)) {
    throw new HostError('ERR_METHOD_NOT_ALLOWED', `${method} requests cannot be passed to an integration`);
  }
  const event = buildFetchEvent(installationId, req, services.baseUrl(), target);
  // Every endpoint shares the host's origin: an endpoint gets only the cookies it set.
  event.request.headers = event.request.headers.flatMap(([header, value]): [string, string][] => {
    if (header !== 'cookie') return [[header, value]];
    const own = cookiesForInstallation(value, cookieKey);
    return own === null ? [] : [['cookie', own]];
  });
  await refuseHostTokens({ headers: event.request.headers, target }, (token) =>
    services.platformApi.isHostToken(token),
  );
  return event;
}

/**
 * The path of an installation's public endpoint (where its cookies are scoped), parsed once per
 * installation record and base URL instead of once per request. Records are replaced, never
 * mutated, when they change, so a stale entry is never read.
 */
function endpointPathOf(services: HostServices): (installation: Installation) => string {
  const paths = new WeakMap<Installation, { baseUrl: string; path: string }>();
  return (installation) => {
    const baseUrl = services.baseUrl();
    const known = paths.get(installation);
    if (known !== undefined && known.baseUrl === baseUrl) return known.path;
    const path = new URL(publicEndpointOf(baseUrl, installation.integration, installation.id)).pathname;
    paths.set(installation, { baseUrl, path });
    return path;
  };
}

export function createPublicFetch(services: HostServices, maxBodyBytes: number): PublicFetch {
  const endpointPath = endpointPathOf(services);
  return {
    async installation(req, target, name, id) {
      checkDeclaredLength(req, maxBodyBytes);
      // Same answer for "no such installation" and "installation of another integration": a public
      // caller learns nothing about installations that are not behind this URL. The record found
      // here is the one dispatched: one lookup per request.
      const installation = await services.findInstallation(id);
      if (installation === undefined || installation.integration !== name) {
        throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" of integration "${name}" not found`);
      }
      const event = await fetchEventOf(req, target, services, installation.id, installation.id);
      const read = await readBody(req, maxBodyBytes);
      // A fresh copy: small Buffers can be slices of Node's shared pool, whose other bytes must
      // never travel with the body.
      const body = read.length > 0 ? new Uint8Array(read) : null;
      const gate = openOAuthGate(services, name, installation.id);
      const admitted = gate === undefined ? { event, body } : await gate.admit(req, event, body);
      if ('refused' in admitted) return admitted.refused;
      const outcome = await services.dispatch(installation, admitted.event, admitted.body, { stream: true });
      const answer = answerOf(
        isolateInBrowser(outcome.response, installation.id, endpointPath(installation)),
        outcome.body,
      );
      return gate === undefined ? answer : gate.seal(answer);
    },

    // The integration's own endpoint: one fixed URL per integration (an OAuth provider's redirect
    // URI, a third party's webhook), dispatched with no installation and the integration token only.
    async integration(req, target, name) {
      checkDeclaredLength(req, maxBodyBytes);
      const cookieKey = integrationCookieKey(name);
      const { installationId: _none, ...event } = await fetchEventOf(req, target, services, '', cookieKey);
      const read = await readBody(req, maxBodyBytes);
      const body = read.length > 0 ? new Uint8Array(read) : null;
      const gate = openOAuthGate(services, name, undefined);
      const admitted = gate === undefined ? { event, body } : await gate.admit(req, event, body);
      if ('refused' in admitted) return admitted.refused;
      const outcome = await services.dispatchToIntegration(name, admitted.event, admitted.body, { stream: true });
      const endpointPath = new URL(integrationEndpointOf(services.baseUrl(), name)).pathname;
      const answer = answerOf(isolateInBrowser(outcome.response, cookieKey, endpointPath), outcome.body);
      return gate === undefined ? answer : gate.seal(answer);
    },
  };
}
