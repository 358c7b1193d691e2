// A server an integration calls with its credentials answers with a redirect to another origin, to
// collect them (its own second server, or the same address under another name): Authorization,
// Cookie and Proxy-Authorization are dropped on the hop that changes origin, for every redirect
// status, while a redirect within the origin keeps them (as the Fetch standard does), and harmless
// headers travel on. Both receivers are allowed loopback ports, so every hop is really sent.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { redirectVia, startReceiver, type Receiver } from '../helpers/receivers.ts';

let host: TestHost;
let first: Receiver;
let collector: Receiver;

const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const SENT = {
  authorization: 'Bearer integration-api-key',
  cookie: 'session=integration-session',
  'proxy-authorization': 'Basic aW50ZWdyYXRpb246cHJveHk=',
};

async function fetchVia(
  target: string,
  method = 'GET',
): Promise<{ status?: number; url?: string; redirected?: boolean; error?: string }> {
  const response = await fetch(`${endpointOf(host, 'credential-fetch')}?${new URLSearchParams({ target, method })}`);
  expect(response.status).toBe(200);
  return response.json();
}

/** The last request `receiver` got on `path` (the hop after the redirect). */
function lastOn(receiver: Receiver, path: string) {
  const found = receiver.requests.filter((request) => request.url === path).at(-1);
  if (found === undefined) throw new Error(`${receiver.url} got no request on ${path}`);
  return found;
}

beforeAll(async () => {
  [first, collector] = await Promise.all([startReceiver('first'), startReceiver('collector')]);
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'test/fixtures/egress-credentials'],
    allowEgress: [`127.0.0.1:${first.port}`, `127.0.0.1:${collector.port}`, `other-name.test:${first.port}`],
    // Another name for the first receiver's address: same socket, another origin. Never a real DNS query.
    egressResolve: { 'other-name.test': ['127.0.0.1'] },
  });
});
afterAll(async () => {
  await host?.close();
  await Promise.all([first?.close(), collector?.close()]);
});

describe('credentials on a redirect', () => {
  it('reach the first server (control: the integration really sends them)', async () => {
    expect(await fetchVia(`${first.url}/direct`)).toMatchObject({ status: 200, redirected: false });
    expect(lastOn(first, '/direct').headers).toMatchObject(SENT);
  });

  it.each([301, 302, 303, 307, 308])('are dropped when a %i redirect changes the port', async (status) => {
    const path = `/collect-${status}`;
    const outcome = await fetchVia(
      redirectVia(first, `${collector.url}${path}`, status),
      status === 307 || status === 308 ? 'POST' : 'GET',
    );
    expect(outcome).toMatchObject({ status: 200, url: `${collector.url}${path}`, redirected: true });
    const collected = lastOn(collector, path);
    for (const name of CREDENTIAL_HEADERS) expect(collected.headers[name], `${name} after a ${status}`).toBeUndefined();
    expect(collected.headers['x-trace']).toBe('trace-1');
    if (status === 307 || status === 308) expect(collected.method).toBe('POST');
  });

  it('are dropped when a redirect changes only the host name (same address and port, another origin)', async () => {
    const target = `http://other-name.test:${first.port}/renamed`;
    expect(await fetchVia(redirectVia(first, target))).toMatchObject({ status: 200, url: target, redirected: true });
    const collected = lastOn(first, '/renamed');
    for (const name of CREDENTIAL_HEADERS) expect(collected.headers[name], name).toBeUndefined();
    expect(collected.headers['x-trace']).toBe('trace-1');
  });

  it('stay dropped for the rest of the chain, even when it comes back to the first origin', async () => {
    const back = redirectVia(collector, `${first.url}/back-home`);
    expect(await fetchVia(redirectVia(first, back))).toMatchObject({ status: 200, redirected: true });
    const collected = lastOn(first, '/back-home');
    for (const name of CREDENTIAL_HEADERS) expect(collected.headers[name], name).toBeUndefined();
  });

  it('are kept on a redirect within the same origin', async () => {
    expect(await fetchVia(redirectVia(first, `${first.url}/same-origin`))).toMatchObject({
      status: 200,
      redirected: true,
    });
    expect(lastOn(first, '/same-origin').headers).toMatchObject(SENT);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
