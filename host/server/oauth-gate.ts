// Seals the OAuth flows of GitBook-format integrations on their public endpoints (security.md,
// "OAuth with GitBook's runtime"). Before a dispatch: takes the connect ticket off the URL, and
// judges a provider's callback, refused before the integration runs unless the host issued its
// state to this browser for this callback URL, unexpired and unused (the integration then gets its
// own state back). After it: a redirect to a provider whose redirect_uri comes back here leaves
// with a sealed state and the browser's binding cookie, or, without a ticketed start, is refused.
// Never touches the requests and answers of an integration it does not seal.

import type { IncomingMessage } from 'node:http';
import { HostError } from '../common/errors.ts';
import { currentRequestId } from '../common/request-context.ts';
import { integrationEndpointOf, integrationLocationOf, publicEndpointOf } from '../installations/urls.ts';
import { bindingCookieName, clearBindingCookie, readCookie, setBindingCookie } from '../oauth-seal/binding-cookie.ts';
import { findCallback, restoreFormState } from '../oauth-seal/provider-callback.ts';
import { findProviderRedirect, sealedLocation, type CallbackEndpoints } from '../oauth-seal/provider-redirect.ts';
import { joinUrl, paramValues, splitUrl, withParam } from '../oauth-seal/raw-params.ts';
import { MAX_ORIGINAL_STATE_CHARS } from '../oauth-seal/sealed-states.ts';
import type { FetchEvent } from './fetch-event.ts';
import { oauthRefusal } from './oauth-refusal.ts';
import type { PublicAnswer } from './public-fetch.ts';
import type { HostServices } from './services.ts';

/** A public endpoint's fetch event (with or without its installation id). */
type PublicEvent = { request: FetchEvent['request'] };

export interface Admitted<E extends PublicEvent> {
  event: E;
  body: Uint8Array | null;
}

export interface OAuthGate {
  /** The request as the integration gets it, or the host's refusal (the integration never runs). */
  admit<E extends PublicEvent>(
    req: IncomingMessage,
    event: E,
    body: Uint8Array | null,
  ): Promise<Admitted<E> | { refused: PublicAnswer }>;
  /** The integration's answer as the browser gets it. */
  seal(answer: PublicAnswer): Promise<PublicAnswer>;
}

const NO_TICKET =
  'this link cannot start an OAuth connection: it carries no connect ticket; ' +
  "open the button from the installation's page (its admin view) again";
const NO_INSTALLATION =
  "the integration's own endpoint cannot start an OAuth connection; " +
  "open the button from the installation's page (its admin view)";

/**
 * The gate of one request to `integration`'s endpoint (an installation's when `installationId` is
 * set, else the integration's own), or undefined when the host does not seal that integration.
 */
export function openOAuthGate(
  services: HostServices,
  integration: string,
  installationId: string | undefined,
): OAuthGate | undefined {
  const seal = services.oauthSeal;
  if (!seal.applies(integration)) return undefined;
  const baseUrl = services.baseUrl();
  const secure = baseUrl.startsWith('https:');
  const cookiePath = `${new URL(integrationLocationOf(baseUrl, integration)).pathname}/`;
  const endpoints: CallbackEndpoints = {
    origin: new URL(baseUrl).origin,
    integrationPath: new URL(integrationEndpointOf(baseUrl, integration)).pathname,
    ...(installationId !== undefined
      ? { installationPath: new URL(publicEndpointOf(baseUrl, integration, installationId)).pathname }
      : {}),
  };
  const where =
    installationId === undefined ? `${integration} (integration endpoint)` : `${integration} ${installationId}`;

  let accept: string | undefined;
  /** Why this request may not start a flow; undefined once a ticket or a redeemed callback allows it. */
  let startProblem = installationId === undefined ? NO_INSTALLATION : NO_TICKET;
  let startFor: string | undefined;
  let spentNonce: string | undefined;

  const refuse = (error: HostError, what: string, extra: [string, string][] = []): PublicAnswer => {
    const request = currentRequestId();
    services.log.warn(`oauth: refused ${what} of ${where}${request ? ` (request ${request})` : ''}: ${error.message}`);
    return oauthRefusal(error, accept, extra);
  };
  const clearing = (nonce: string): [string, string] => ['set-cookie', clearBindingCookie(nonce, cookiePath, secure)];

  return {
    async admit(req, event, body) {
      accept = req.headers.accept;
      const parts = splitUrl(event.request.url);
      let query = parts.query;
      let headers = event.request.headers;

      // The host's parameter: the integration sees the URL as it would on GitBook.
      const tickets = installationId === undefined ? [] : paramValues(query, 'ticket');
      if (tickets.length > 0 && installationId !== undefined) {
        query = withParam(query, 'ticket', null);
        const problem =
          tickets.length > 1
            ? 'this connect link carries several tickets'
            : seal.ticketProblem(installationId, tickets[0]);
        if (problem === undefined) startFor = installationId;
        else startProblem = problem;
      }

      const callback = findCallback(event.request.method, query, req.headers['content-type'], body);
      if (callback !== undefined) {
        if (callback.states.length !== 1) {
          const reason =
            callback.states.length === 0 ? 'the callback carries no state' : 'the callback carries several states';
          return {
            refused: refuse(
              new HostError('ERR_OAUTH_STATE_INVALID', `OAuth callback refused: ${reason}`),
              'an OAuth callback',
            ),
          };
        }
        const redeemed = await seal.states.redeem({
          integration,
          callbackPath: new URL(event.request.url).pathname,
          state: callback.states[0],
          bindingFor: (nonce) => readCookie(req.headers.cookie, bindingCookieName(nonce)),
        });
        if (!redeemed.ok) {
          const extra = redeemed.nonce === undefined ? [] : [clearing(redeemed.nonce)];
          return {
            refused: refuse(
              new HostError('ERR_OAUTH_STATE_INVALID', `OAuth callback refused: ${redeemed.reason}`),
              'an OAuth callback',
              extra,
            ),
          };
        }
        spentNonce = redeemed.nonce;
        // The browser that finishes a flow may be sent to the provider again (a provider's error, a retry).
        startFor = redeemed.installationId;
        if (callback.where === 'query') query = withParam(query, 'state', redeemed.originalState);
        else if (body !== null) {
          body = restoreFormState(body, redeemed.originalState);
          const length = String(body.length);
          headers = headers.map(([name, value]): [string, string] =>
            name === 'content-length' ? [name, length] : [name, value],
          );
        }
        services.log.info(`oauth: accepted a callback of ${where} (flow of ${redeemed.installationId})`);
      }
      return { event: { ...event, request: { ...event.request, url: joinUrl({ ...parts, query }), headers } }, body };
    },

    async seal(answer) {
      const extra: [string, string][] = spentNonce === undefined ? [] : [clearing(spentNonce)];
      const redirect = findProviderRedirect(answer.status, answer.headers, endpoints);
      if (redirect === undefined)
        return extra.length === 0 ? answer : { ...answer, headers: [...answer.headers, ...extra] };
      const refuseStart = (error: HostError): PublicAnswer => {
        answer.stream?.cancel();
        return refuse(error, 'an OAuth start', extra);
      };
      if (startFor === undefined) return refuseStart(new HostError('ERR_OAUTH_TICKET_INVALID', startProblem));
      if (redirect.states.length > 1 || (redirect.states[0]?.length ?? 0) > MAX_ORIGINAL_STATE_CHARS) {
        const what =
          redirect.states.length > 1 ? 'several states' : `a state longer than ${MAX_ORIGINAL_STATE_CHARS} characters`;
        return refuseStart(
          new HostError('ERR_SANDBOX_BAD_RESPONSE', `the integration's redirect to its OAuth provider carries ${what}`),
        );
      }
      const sealed = await seal.states.seal({
        integration,
        installationId: startFor,
        callbackPath: redirect.callbackPath,
        originalState: redirect.states[0] ?? null,
      });
      const headers: [string, string][] = answer.headers
        .filter(([name]) => name.toLowerCase() !== 'cache-control')
        .map(([name, value]) =>
          name.toLowerCase() === 'location' ? [name, sealedLocation(redirect, sealed.state)] : [name, value],
        );
      headers.push(
        ['cache-control', 'no-store'],
        ['set-cookie', setBindingCookie(sealed.nonce, sealed.binding, cookiePath, secure, sealed.maxAgeSeconds)],
        ...extra,
      );
      services.log.info(`oauth: sealed a connection of ${where} for ${startFor} (callback ${redirect.callbackPath})`);
      return { ...answer, headers };
    },
  };
}
