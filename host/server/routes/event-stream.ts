// `GET /v1/integrations/:name/events/stream[?installation=<id>]` (admin): the event log as it is
// written, as server-sent events (`event: dispatch`, `data: <entry JSON>`), a `: keep-alive`
// comment every 15 s. A client that falls behind is dropped, never buffered for without bound.

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { HostError } from '../../common/errors.ts';
import type { HostServices } from '../services.ts';

export interface EventStreamLimits {
  /** Interval of the `: keep-alive` comment (proxies close idle connections). */
  keepAliveMs: number;
  /** Bytes a slow client may have waiting in its socket's buffer before it is disconnected. */
  maxBufferedBytes: number;
}

export const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = { keepAliveMs: 15_000, maxBufferedBytes: 1024 * 1024 };

function readInstallation(ctx: Context): string | undefined {
  const unknown = Object.keys(ctx.query).find((field) => field !== 'installation');
  if (unknown !== undefined)
    throw new HostError('ERR_VALIDATION', `${unknown}: is not a parameter of the stream (use installation)`, [
      { pointer: `/${unknown}`, message: 'is not a parameter of the stream' },
    ]);
  const value = ctx.query.installation;
  if (value === undefined) return undefined;
  if (Array.isArray(value) || value === '')
    throw new HostError('ERR_VALIDATION', 'installation: must be one installation id', [
      { pointer: '/installation', message: 'must be one installation id' },
    ]);
  return value;
}

export function registerEventStreamRoutes(
  router: Router,
  services: HostServices,
  adminAuth: Middleware,
  limits: EventStreamLimits = DEFAULT_EVENT_STREAM_LIMITS,
): void {
  router.get('/v1/integrations/:name/events/stream', adminAuth, async (ctx) => {
    const installationId = readInstallation(ctx);
    const res = ctx.res;
    let open = true;
    /** Frames of entries recorded between following and the headers: sent right after them. */
    let early: string[] | null = [];
    let keepAlive: NodeJS.Timeout | undefined;
    let stop: () => void = () => undefined;
    const finish = (): void => {
      if (!open) return;
      open = false;
      clearInterval(keepAlive);
      stop();
    };
    /** Writes a frame unless the client is too far behind, in which case it is disconnected. */
    const write = (frame: string): void => {
      if (!open) return;
      if (early !== null) {
        early.push(frame);
        return;
      }
      if (res.writableLength > limits.maxBufferedBytes) {
        finish();
        res.destroy();
        return;
      }
      res.write(frame);
    };
    // Following first: an unknown integration or installation is a 404 before any byte is sent.
    stop = await services.followEvents(ctx.params.name, installationId === undefined ? {} : { installationId }, {
      entry: (entry) => write(`event: dispatch\ndata: ${JSON.stringify(entry)}\n\n`),
      end: () =>
        new Promise<void>((resolve) => {
          if (!open || res.writableEnded) return resolve();
          finish();
          const bound = setTimeout(resolve, 1_000);
          res.end(() => {
            clearTimeout(bound);
            resolve();
          });
        }),
    });
    ctx.respond = false;
    ctx.status = 200;
    res.once('close', finish);
    // The client may have gone while the host looked the installation up.
    if (res.destroyed || ctx.req.socket.destroyed) return finish();
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.write(`: following ${ctx.params.name}\n\n`);
    const queued = early;
    early = null;
    for (const frame of queued ?? []) write(frame);
    keepAlive = setInterval(() => write(': keep-alive\n\n'), limits.keepAliveMs);
  });
}
