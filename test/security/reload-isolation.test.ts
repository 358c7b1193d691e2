// A reload (the dev loop swapping in a new build) must not carry state between builds: the new
// build runs in a fresh isolate that sees nothing the old one stashed (globals, module state,
// prototypes), and a dispatch still finishing on the old build never sees the new build's state.
import { cpSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/hostile/reload-carry');
const temp = new TempDirs();
let host: TestHost;
let root: string;
let gate: http.Server;
let gateUrl: string;
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  gate = http.createServer((_req, res) => void held.push(res));
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  const port = (gate.address() as AddressInfo).port;
  gateUrl = `http://127.0.0.1:${port}/`;
  root = temp.make();
  cpSync(FIXTURE, path.join(root, 'reload-carry'), { recursive: true });
  host = await startTestHost({
    dirs: ['fixtures/integrations', root],
    cacheDir: path.join(root, '.cache'),
    allowEgress: [`127.0.0.1:${port}`],
  });
}, 60_000);

afterAll(async () => {
  await host?.close();
  for (const res of held) res.destroy();
  gate.closeAllConnections();
  await new Promise<void>((resolve) => gate.close(() => resolve()));
  temp.cleanup();
});

const endpoint = () =>
  host.devInstallations.find((dev) => dev.integration === 'reload-carry')!.installation!.urls.publicEndpoint;

describe('reload isolation', () => {
  it('gives the new build nothing of the old one, and the old one nothing of the new', async () => {
    const stashed = await (await fetch(`${endpoint()}?stash=secret-of-the-first-build`)).json();
    expect(stashed).toEqual({
      version: 1,
      kept: ['secret-of-the-first-build'],
      carry: 'secret-of-the-first-build',
      seenNext: null,
    });
    const holding = fetch(`${endpoint()}?gate=${encodeURIComponent(gateUrl)}`);
    const deadline = Date.now() + 30_000;
    while (held.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held).toHaveLength(1);

    temp.write(root, 'reload-carry/index.ts', readFileSync(path.join(FIXTURE, 'next.ts'), 'utf8'));
    expect(await host.reload()).toEqual([expect.objectContaining({ integration: 'reload-carry', kind: 'code' })]);

    const fresh = await (await fetch(endpoint())).json();
    expect(fresh).toEqual({ version: 2, carry: null, protoCarry: null, globals: [] });

    held.shift()!.end('go');
    const old = await (await holding).json();
    expect(old).toEqual({
      version: 1,
      kept: ['secret-of-the-first-build'],
      carry: 'secret-of-the-first-build',
      seenNext: null,
    });
    expect(JSON.stringify(old)).not.toContain('second build');
  }, 60_000);

  it('leaves the host healthy', async () => {
    await expectHostHealthy(host);
  });
});
