// Files an integration's build would read that are not plain source files: a FIFO (reading it
// waits for a writer forever), a character device like /dev/zero (reading it never ends), a
// package.json esbuild reads itself, a file past the size cap, a file of an unknown kind. Each
// makes the integration invalid with a problem naming the file; `npm run check` finishes and
// `npm run host` starts listening with the others served.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadIntegrations } from '../../host/manifest/load.ts';
import { startTestHost } from '../helpers/host.ts';

const TEMPLATE = 'test/fixtures/hostile-files/special-import';
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A fixtures root holding the hostile integration with `special.js` made by `make`. */
function hostileRoot(make: (file: string) => void, name = 'special.js'): string {
  const root = mkdtempSync(join(tmpdir(), 'hostile-files-'));
  roots.push(root);
  const folder = join(root, 'special-import');
  cpSync(TEMPLATE, folder, { recursive: true });
  if (name !== 'special.js')
    writeFileSync(
      join(folder, 'index.ts'),
      `import special from './${name}';\nimport { createIntegration } from 'sandbox-api';\nexport default ` +
        `createIntegration({ async fetch() { return new Response(String(special)); } });\n`,
    );
  make(join(folder, name));
  return root;
}

const cacheDir = () => mkdtempSync(join(tmpdir(), 'hostile-files-cache-'));

async function problemsOf(root: string): Promise<string[]> {
  const [integration] = await loadIntegrations([root], { env: {}, firstPartyOrganizations: [], cacheDir: cacheDir() });
  expect(integration.status).toBe('invalid');
  return integration.errors.map((problem) => problem.message);
}

function canMknod(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'mknod-probe-'));
  try {
    execFileSync('mknod', [join(probe, 'zero'), 'c', '1', '5'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

describe('hostile files imported by an integration', () => {
  it('refuses a FIFO without waiting for a writer', async () => {
    const root = hostileRoot((file) => execFileSync('mkfifo', [file]));
    expect(await problemsOf(root)).toEqual([
      expect.stringMatching(/^special\.js is a FIFO, socket or device, which the build could wait on forever/),
    ]);
  });

  it.skipIf(!canMknod())('refuses a character device (like /dev/zero) without reading it', async () => {
    const root = hostileRoot((file) => execFileSync('mknod', [file, 'c', '1', '5']));
    expect(await problemsOf(root)).toEqual([expect.stringMatching(/^special\.js is a FIFO, socket or device/)]);
  });

  it('refuses a source file past the 16 MiB cap without reading it', async () => {
    const root = hostileRoot((file) => {
      writeFileSync(file, '');
      truncateSync(file, 17 * 1024 * 1024);
    });
    expect(await problemsOf(root)).toEqual([expect.stringMatching(/special\.js, which is larger than 16777216 bytes/)]);
  });

  it('refuses a file of an unknown kind instead of handing it to esbuild', async () => {
    const root = hostileRoot((file) => writeFileSync(file, 'body { color: red }'), 'special.css');
    expect(await problemsOf(root)).toEqual([expect.stringMatching(/special\.css, which is not a source file/)]);
  });

  it(
    'refuses a FIFO package.json that esbuild itself would ' + 'read, in the folder or a package it can resolve',
    async () => {
      const root = hostileRoot((file) => writeFileSync(file, 'export default 1;'));
      execFileSync('mkfifo', [join(root, 'special-import', 'package.json')]);
      expect(await problemsOf(root)).toEqual([expect.stringMatching(/^package\.json is a FIFO, socket or device/)]);
      // A package in node_modules the integration resolves through (hoisted to the workspace root).
      const workspace = hostileRoot((file) => writeFileSync(file, 'export default 1;'));
      writeFileSync(join(workspace, 'package.json'), '{"private":true}');
      const pkg = join(workspace, 'node_modules', 'left-pad');
      execFileSync('mkdir', ['-p', pkg]);
      execFileSync('mkfifo', [join(pkg, 'package.json')]);
      expect(await problemsOf(workspace)).toEqual([
        expect.stringMatching(/node_modules\/left-pad\/package\.json is a FIFO, socket or device/),
      ]);
    },
  );

  it('refuses a FIFO that an imported package in node_modules points the build at', async () => {
    const workspace = hostileRoot((file) => writeFileSync(file, "export { default } from 'trap';"));
    writeFileSync(join(workspace, 'package.json'), '{"private":true}');
    const pkg = join(workspace, 'node_modules', 'trap');
    execFileSync('mkdir', ['-p', pkg]);
    writeFileSync(join(pkg, 'package.json'), '{"name":"trap","main":"index.js"}');
    execFileSync('mkfifo', [join(pkg, 'index.js')]);
    expect(await problemsOf(workspace)).toEqual([
      expect.stringMatching(/node_modules\/trap\/index\.js, which is a FIFO, not a regular file/),
    ]);
  });

  it('lets `npm run check` finish on a FIFO import, naming it, with exit code 1', async () => {
    const root = hostileRoot((file) => execFileSync('mkfifo', [file]));
    const child = spawn(process.execPath, ['--no-node-snapshot', 'host/cli.ts', 'check', root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(output).toMatch(/special\.js is a FIFO, socket or device/);
    expect(output).toMatch(/1 invalid/);
    expect(code).toBe(1);
  });

  it('lets the host start listening with the FIFO importer invalid and the others served', async () => {
    const root = hostileRoot((file) => execFileSync('mkfifo', [file]));
    const host = await startTestHost({ dirs: ['fixtures/integrations', root], cacheDir: cacheDir() });
    try {
      expect(host.integrations.find((integration) => integration.name === 'special-import')?.status).toBe('invalid');
      expect((await fetch(`${host.url}/health`)).status).toBe(200);
    } finally {
      await host.close();
    }
  });
});
