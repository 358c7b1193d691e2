// The public endpoints' fetch path served straight from node:http, in front of Koa: for a plain
// request to `/v1/integrations/:name/installations/:id[/...]` or `/v1/integrations/:name/integration[/...]`
// it skips Koa's context, its middleware chain and the router's scan of every route, and answers
// exactly what the Koa app would (status, reason, headers in the same order, body, `x-request-id`,
// the access-log line, error bodies and their log lines); test/unit/server/direct-public-fetch.test.ts
// holds the two side by side. Anything it does not recognise plainly (an API token, an unusual
// path or target) it leaves to Koa untouched. Never reads a request it did not take.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HostError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { withRequestId } from '../common/request-context.ts';
import { pipeline } from 'node:stream';
import { EMPTY_STATUSES, checkSandboxResponse, readableOf, type CheckedResponse } from './send-sandbox-response.ts';
import { readyForRefusal } from './discard-body.ts';
import { toHostError } from './errors-middleware.ts';
import { accessLogLine } from './request-log.ts';
import { isApiCall } from './routes/platform-api.ts';
import type { PublicFetch } from './public-fetch.ts';

/**
 * Request targets taken: origin-form, printable ASCII without `#` (Koa's path parsing treats
 * whitespace and `#` its own way), and no `%` in the name or id, so the router's decoding of
 * them would change nothing. The router matches case-insensitively; these only in lower case.
 */
const PLAIN_TARGET = /^\/[\x21\x22\x24-\x7e]*$/;
const INSTALLATION_PATH = /^\/v1\/integrations\/([^/?%]+)\/installations\/([^/?%]+)(?:\/[^?]*)?$/;
const INTEGRATION_PATH = /^\/v1\/integrations\/([^/?%]+)\/integration(?:\/[^?]*)?$/;
const PREFIX = '/v1/integrations/';

/** Koa's `ctx.writable`: whether an answer can still reach the client. */
function writable(res: ServerResponse): boolean {
  if (res.writableEnded) return false;
  return res.socket === null ? true : res.socket.writable;
}

/**
 * Writes a checked answer as Koa's `sendSandboxResponse` and its responder do, call for call; a
 * body stream goes out as it arrives (chunked), and a failure of it mid-way cuts the connection.
 */
function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: CheckedResponse): void {
  res.statusCode = answer.status;
  if (answer.statusText) res.statusMessage = answer.statusText;
  for (const [name, values] of answer.headers) res.setHeader(name, values.length === 1 ? values[0] : values);
  const stream = answer.stream;
  if (stream !== undefined) {
    if (!writable(res) || EMPTY_STATUSES.has(answer.status) || req.method === 'HEAD') {
      stream.cancel();
      if (EMPTY_STATUSES.has(answer.status)) res.removeHeader('Content-Type');
      res.end();
      return;
    }
    pipeline(readableOf(stream), res, () => undefined);
    return;
  }
  res.setHeader('Content-Length', answer.body.length);
  if (!writable(res)) {
    res.end();
    return;
  }
  if (EMPTY_STATUSES.has(answer.status)) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
    return;
  }
  if (req.method === 'HEAD') res.end();
  else res.end(answer.body);
}

/** Writes an error as the error middleware's `writeError` and Koa's JSON responder do. */
function writeError(req: IncomingMessage, res: ServerResponse, error: HostError, close: boolean): void {
  const requestId = res.getHeader('x-request-id');
  if (!res.headersSent) for (const name of res.getHeaderNames()) res.removeHeader(name);
  if (requestId) res.setHeader('x-request-id', String(requestId));
  if (error.code === 'ERR_UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'Bearer');
  if (close) res.setHeader('Connection', 'close');
  res.statusCode = error.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (!writable(res)) {
    res.end();
    return;
  }
  const body = JSON.stringify(error.toBody());
  res.setHeader('Content-Length', Buffer.byteLength(body));
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/** Takes the request and answers it, or returns false without touching it (Koa's to serve). */
export type DirectPublicFetch = (req: IncomingMessage, res: ServerResponse) => boolean;

export function createDirectPublicFetch(
  publicFetch: PublicFetch,
  nextRequestId: () => string,
  log: Logger,
): DirectPublicFetch {
  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    fetch: () => Promise<CheckedResponse>,
  ): Promise<void> {
    const startedAt = performance.now();
    const id = nextRequestId();
    res.setHeader('x-request-id', id);
    const method = req.method ?? 'GET';
    const outcome = await withRequestId(id, async (): Promise<CheckedResponse | HostError> => {
      try {
        return await fetch();
      } catch (error) {
        return toHostError(error, id, method, path, log);
      }
    });
    const answer = 'body' in outcome ? outcome : null;
    // As the error middleware does: the unread rest of a refused body is drained up to a bound.
    const close = answer === null ? await readyForRefusal(req, res) : false;
    try {
      if (answer === null) writeError(req, res, outcome as HostError, close);
      else writeAnswer(req, res, answer);
    } finally {
      // After the answer is written (the same line either way): the caller does not wait for it.
      log.info(
        accessLogLine(method, path, answer === null ? (outcome as HostError).status : answer.status, startedAt, id),
      );
    }
  }

  return (req, res) => {
    const target = req.url;
    if (target === undefined || !target.startsWith(PREFIX) || !PLAIN_TARGET.test(target)) return false;
    const query = target.indexOf('?');
    const path = query === -1 ? target : target.slice(0, query);
    let fetch: () => Promise<CheckedResponse>;
    const installation = INSTALLATION_PATH.exec(path);
    const integration = installation === null ? INTEGRATION_PATH.exec(path) : null;
    if (installation !== null)
      fetch = async () =>
        checkSandboxResponse(await publicFetch.installation(req, target, installation[1], installation[2]));
    else if (integration !== null)
      fetch = async () => checkSandboxResponse(await publicFetch.integration(req, target, integration[1]));
    else return false;
    if (isApiCall(path, req.headers.authorization)) return false;
    serve(req, res, path, fetch).catch((error: unknown) => {
      // Only a bug in the writing above gets here; the answer may be half-written, so end it.
      log.error(
        `request ${String(res.getHeader('x-request-id') ?? '-')}: response failed: ` +
          (error instanceof Error ? (error.stack ?? error.message) : String(error)),
      );
      if (!res.writableEnded) res.destroy();
    });
    return true;
  };
}
