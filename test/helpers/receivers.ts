// Loopback HTTP receivers for the egress tests: each records every request that reaches it (its
// URL, and its headers for the credential tests: proof a forbidden destination was never contacted,
// or of what a destination was sent) and answers, or redirects wherever `?url=` says.
// They listen on 127.0.0.1 only; callers must close() them.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  port: number;
  url: string;
  hits: string[];
  /** Every request, in order, with its headers as received (names lower-case). */
  requests: { method: string; url: string; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}

/** `/to?url=U[&status=S]` answers a redirect to U; anything else answers 200 with `body`. */
export async function startReceiver(body: string): Promise<Receiver> {
  const hits: string[] = [];
  const requests: Receiver['requests'] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers } });
    const target = new URL(req.url ?? '/', 'http://receiver');
    if (target.pathname === '/to')
      return res
        .writeHead(Number(target.searchParams.get('status') ?? 302), {
          location: target.searchParams.get('url') ?? '/',
        })
        .end();
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    hits,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The redirect URL on `via` that sends the client to `target`. */
export function redirectVia(via: Receiver, target: string, status = 302): string {
  return `${via.url}/to?${new URLSearchParams({ url: target, status: String(status) })}`;
}
