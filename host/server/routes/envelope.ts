// `POST /{version}`: the platform's envelope as multipart/form-data, routed by `event.installationId`.
// Must never pass on the client's `environment`: secrets, tokens and scopes come only from the
// host's own records, which services.dispatch builds.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HostError } from '../../common/errors.ts';
import type { HostServices } from '../services.ts';
import { envelopeInvalid, parseMultipartEnvelope } from '../multipart-envelope.ts';
import { sendSandboxResponse } from '../send-sandbox-response.ts';

const SUPPORTED_ENVELOPE_VERSIONS = ['v1'];

/**
 * A `fetch` event's `request` must be one the runtime can turn into a Request; otherwise the
 * client's mistake would come back as the integration's 500. Node's Request applies the same
 * WHATWG rules as the runtime's (method token, no credentials in the URL, header bytes).
 */
function checkFetchRequest(request: unknown): void {
  const fields = (request ?? {}) as { method?: unknown; url?: unknown; headers?: unknown };
  if (
    typeof request !== 'object' ||
    request === null ||
    typeof fields.method !== 'string' ||
    typeof fields.url !== 'string'
  ) {
    throw envelopeInvalid('a "fetch" event needs "request": { method, url, headers } with string method and url');
  }
  try {
    new Request(fields.url, { method: fields.method, headers: fields.headers as HeadersInit | undefined });
  } catch (error) {
    throw envelopeInvalid(`the "fetch" event's request is invalid: ${(error as Error).message}`);
  }
}

export function registerEnvelopeRoutes(
  router: Router,
  services: HostServices,
  adminAuth: Middleware,
  maxEnvelopeBytes: number,
): void {
  // A RegExp route, so `POST /health` stays a 405 and `POST /anything` a 404.
  router.post(/^\/(v\d+)\/?$/, adminAuth, async (ctx) => {
    const version = ctx.path.replace(/^\/|\/$/g, '');
    if (!SUPPORTED_ENVELOPE_VERSIONS.includes(version)) {
      throw new HostError(
        'ERR_UNSUPPORTED_VERSION',
        `envelope version "${version}" is not supported (supported: ${SUPPORTED_ENVELOPE_VERSIONS.join(', ')})`,
      );
    }
    // `environment` is parsed (a malformed one is refused) and then deliberately dropped: the
    // host builds the real environment from its own records inside services.dispatch.
    const { event, fetchBody } = await parseMultipartEnvelope(ctx.req, maxEnvelopeBytes);
    const installationId = event.installationId;
    if (typeof installationId !== 'string' || installationId === '') {
      throw envelopeInvalid('part "event" must have a string "installationId"');
    }
    if (typeof event.type !== 'string' || event.type === '')
      throw envelopeInvalid('part "event" must have a string "type"');
    if (event.type === 'fetch') checkFetchRequest(event.request);
    const installation = await services.requireInstallation(installationId); // 404 before any sandbox work
    const outcome = await services.dispatch(installation, { ...event, type: event.type }, fetchBody);
    sendSandboxResponse(ctx, outcome.response);
  });
}
