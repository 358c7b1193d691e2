// `--metrics-listen HOST:PORT`: a second listener that serves only `GET /metrics`, without the
// admin token, for a Prometheus that scrapes over a private network. Bind it to an address only
// that network reaches; everything else answers 404.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostError } from '../common/errors.ts';
import type { HostMetrics } from '../metrics/metrics.ts';

export interface MetricsListener {
  url: string;
  /** The port it is bound to (one of the host's own: never an egress destination). */
  port: number;
  close(): Promise<void>;
}

export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535)
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `--metrics-listen expects HOST:PORT (e.g. 127.0.0.1:9464), got "${value}"`,
    );
  return { host: match[1] ?? match[2], port };
}

export async function openMetricsListener(address: string, metrics: HostMetrics): Promise<MetricsListener> {
  const { host, port } = parseListenAddress(address);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.render().then(
      (body) => res.writeHead(200, { 'content-type': metrics.contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new HostError(
          'ERR_OPTIONS_INVALID',
          `--metrics-listen ${address}: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    port: bound,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}
