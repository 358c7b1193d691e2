// `GET /` on the API port is a 404 that points to the console and the HTTP API docs: a page for a
// browser, text for curl, the usual JSON error body for a client that asks for JSON.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../../host/server/app.ts';
import { createFakeServices } from './fake-services.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0))
    await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
});

async function serve(consoleUrl?: string): Promise<string> {
  const server = createServer(
    createRequestListener(createFakeServices(), undefined, consoleUrl === undefined ? {} : { consoleUrl }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('GET / on the API port', () => {
  it('answers a browser with a page linking the console and naming the API docs', async () => {
    const url = await serve('http://127.0.0.1:8789');
    const res = await fetch(`${url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const page = await res.text();
    expect(page).toContain('<a href="http://127.0.0.1:8789/console">http://127.0.0.1:8789/console</a>');
    expect(page).toContain('docs/http-api.md');
  });

  it('answers curl with text, and says when there is no console', async () => {
    const url = await serve();
    const res = await fetch(`${url}/`, { headers: { accept: '*/*' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^This is the integration host's HTTP API; nothing is served at \/\.\n/);
    expect(text).toContain(
      'Console: not running on this host (--no-console, or a host made from code without consolePort).',
    );
    expect(text).toContain('GET /v1/integrations with "Authorization: Bearer <admin token>"');
  });

  it('keeps the JSON error body for a client that asks for JSON', async () => {
    const url = await serve('http://127.0.0.1:8789');
    const res = await fetch(`${url}/`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        code: 'ERR_NOT_FOUND',
        message:
          "no route for GET /: this is the host's HTTP API, described in docs/http-api.md in the host's " +
          'repository; the console is at http://127.0.0.1:8789/console',
      },
    });
  });
});
