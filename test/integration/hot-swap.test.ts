// Swapping an integration's code while the host runs (what `npm run dev` does on a save): a
// dispatch in flight finishes on the old code, the next one runs the new code, and new code
// starts with a clean record (a timeout pause of the old code is lifted).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';

const temp = new TempDirs();
let host: TestHost;
let root: string;
let gate: http.Server;
let gateUrl: string;
/** Requests the gate holds until the test lets them go. */
const held: http.ServerResponse[] = [];

const MANIFEST =
  'name: swap\ntitle: Swap\ndescription: D.\norganization: acme\nvisibility: public\nscopes: []\nscript: ' +
  'src/index.ts\n';
const version = (n: number) => `import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request) {
    const url = new URL(request.url);
    if (url.searchParams.has('spin')) for (;;) {}
    const gate = url.searchParams.get('gate');
    if (gate) await (await fetch(gate)).text();
    return Response.json({ version: ${n} });
  },
});
`;

function endpoint(): string {
  return host.devInstallations.find((dev) => dev.integration === 'swap')!.installation!.urls.publicEndpoint;
}

async function waitUntil(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  gate = http.createServer((_req, res) => void held.push(res));
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  const port = (gate.address() as AddressInfo).port;
  gateUrl = `http://127.0.0.1:${port}/`;
  root = temp.make({ 'swap/platform-manifest.yaml': MANIFEST, 'swap/src/index.ts': version(1) });
  host = await startTestHost({
    dirs: [root],
    cacheDir: path.join(root, '.cache'),
    allowEgress: [`127.0.0.1:${port}`],
    workers: 1,
    limits: { dispatchTimeoutMs: 1_000, timeoutsBeforeCooldown: 2, timeoutCooldownMs: 600_000 },
  });
}, 60_000);

afterAll(async () => {
  await host?.close();
  for (const res of held) res.destroy();
  gate.closeAllConnections();
  await new Promise<void>((resolve) => gate.close(() => resolve()));
  temp.cleanup();
});

describe('swapping code under load', () => {
  it('finishes a dispatch in flight on the old code and runs the next one on the new code', async () => {
    expect(await (await fetch(endpoint())).json()).toEqual({ version: 1 });
    const inFlight = fetch(`${endpoint()}?gate=${encodeURIComponent(gateUrl)}`);
    await waitUntil(() => held.length === 1);
    temp.write(root, 'swap/src/index.ts', version(2));
    const changes = await host.reload();
    expect(changes).toEqual([expect.objectContaining({ integration: 'swap', kind: 'code' })]);
    expect(await (await fetch(endpoint())).json()).toEqual({ version: 2 });
    held.shift()!.end('go');
    const old = await inFlight;
    expect(old.status).toBe(200);
    expect(await old.json()).toEqual({ version: 1 });
    // Both dispatches are in the event log: the old isolate's answer was recorded, not lost.
    const { items } = await (await host.admin('/v1/integrations/swap/events')).json();
    expect(items.filter((item: { status: number }) => item.status === 200).length).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('reports nothing when nothing changed', async () => {
    expect(await host.reload()).toEqual([]);
  });

  it('lifts a timeout pause of the old code when new code arrives', async () => {
    expect((await fetch(`${endpoint()}?spin=1`)).status).toBe(504);
    expect((await fetch(`${endpoint()}?spin=1`)).status).toBe(504);
    const paused = await fetch(endpoint());
    expect(paused.status).toBe(503);
    expect((await paused.json()).error.code).toBe('ERR_INTEGRATION_THROTTLED');
    temp.write(root, 'swap/src/index.ts', version(3));
    expect(await host.reload()).toEqual([expect.objectContaining({ integration: 'swap', kind: 'code' })]);
    const answer = await fetch(endpoint());
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ version: 3 });
  }, 60_000);
});
