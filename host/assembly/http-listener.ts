// The host's HTTP listener, opened before anything else is built so that the port, and every URL
// the host hands out, is known up front. Until the app is attached every request gets a 503;
// it owns Node-level concerns only (parser errors, Expect, draining at shutdown), never routing.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostError } from '../common/errors.ts';
import { answerClientError } from '../server/client-error.ts';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface HttpListener {
  /** `http://<host>:<port>` as bound (port 0 resolved; a wildcard address as its loopback, see urlHostOf). */
  readonly baseUrl: string;
  readonly port: number;
  /** Hands every request from now on to `listener` (the Koa app's callback). */
  serve(listener: RequestListener): void;
  /**
   * Stops accepting connections, lets requests in progress finish (answering them with
   * `connection: close`) for at most `graceMs`, then closes what is left.
   */
  drain(graceMs: number): Promise<void>;
  /** Requests being answered now. */
  inFlight(): number;
  close(): Promise<void>;
}

function notReady(_req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify(new HostError('ERR_NOT_READY', 'the host is starting; retry shortly').toBody());
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'retry-after': '1',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * The operator's view of a failed listen: one line naming the port or address and the fix. An
 * unknown failure keeps Node's error (it would be a host bug worth a stack trace).
 */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number, flag = '--port'): Error {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new HostError('ERR_LISTEN_FAILED', `port ${port} is in use: pass ${flag} 0 or stop the other host`);
    case 'EACCES':
      return new HostError(
        'ERR_LISTEN_FAILED',
        `port ${port} needs privileges this process does not have: pass a port above 1023 or ${flag} 0`,
      );
    case 'EADDRNOTAVAIL':
      return new HostError(
        'ERR_LISTEN_FAILED',
        `cannot listen on ${where}: the address is not one of this ` +
          `machine's; pass --bind with one of its addresses, or 127.0.0.1`,
      );
    default:
      return error;
  }
}

/**
 * The host part of the URLs the host prints and hands out: the bound address, except that a
 * wildcard (0.0.0.0, ::) is no address a client can connect to, so its loopback stands in for it.
 */
export function urlHostOf(host: string): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') && /^[0:]+$/.test(host) ? '::1' : host;
  return reachable.includes(':') ? `[${reachable}]` : reachable;
}

/** `flag` names the option that chose the port, for the error a taken port gives. */
export async function openHttpListener(host: string, port: number, flag = '--port'): Promise<HttpListener> {
  let current: RequestListener = notReady;
  let active = 0;
  let draining = false;
  let idle: (() => void) | null = null;
  const server: Server = createServer((req, res) => {
    active++;
    res.once('close', () => {
      active--;
      if (active === 0) idle?.();
    });
    if (draining) res.setHeader('connection', 'close');
    current(req, res);
  });
  // Requests Node itself would refuse with a bare status line get the host's JSON errors, and an
  // Expect other than 100-continue is ignored (RFC 9110 allows it) instead of Node's empty 417.
  server.on('clientError', answerClientError);
  server.on('checkExpectation', (req, res) => current(req, res));
  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => reject(listenError(error, host, port, flag));
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return {
    baseUrl: `http://${urlHostOf(host)}:${bound}`,
    port: bound,
    serve(listener) {
      current = listener;
    },
    inFlight: () => active,
    async drain(graceMs) {
      draining = true;
      // No new connections from here on; keep-alive connections with nothing in flight close now.
      server.close();
      server.closeIdleConnections();
      if (active > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
      }
      await close();
    },
    close,
  };
}
