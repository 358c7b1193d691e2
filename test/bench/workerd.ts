// workerd beside us: fetches Cloudflare's `workerd` binary from the npm registry on first use into
// .cache/workerd/<version>/ (gitignored; never a dependency of the project), then serves a hello-world
// module worker equivalent to the bench's trivial integration on a free loopback port.
// If the binary cannot be had, `startWorkerd` says why in one line and the bench goes on without it.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The workerd release the figures are quoted against; bump deliberately. */
export const WORKERD_VERSION = '1.20261117.1';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = path.join(REPOSITORY, '.cache', 'workerd', WORKERD_VERSION);

/** The npm package that carries the binary for this machine (the `workerd` package's optional dependencies). */
function platformPackage(): { name: string; binary: string } | null {
  const arch = process.arch === 'x64' ? '64' : process.arch === 'arm64' ? 'arm64' : null;
  if (arch === null) return null;
  if (process.platform === 'linux') return { name: `@cloudflare/workerd-linux-${arch}`, binary: 'bin/workerd' };
  if (process.platform === 'darwin') return { name: `@cloudflare/workerd-darwin-${arch}`, binary: 'bin/workerd' };
  if (process.platform === 'win32' && arch === '64')
    return { name: '@cloudflare/workerd-windows-64', binary: 'bin/workerd.exe' };
  return null;
}

/** npm as the bench was started with it (`npm run bench` sets npm_execpath), else the one on PATH. */
function npmCommand(args: string[]): [string, string[]] {
  const cli = process.env.npm_execpath;
  return cli && cli.endsWith('.js') ? [process.execPath, [cli, ...args]] : ['npm', args];
}

/** Path of the workerd binary, fetching it into the cache if needed. Throws with a short reason. */
export async function workerdBinary(): Promise<string> {
  if (process.env.WORKERD_BIN) return process.env.WORKERD_BIN;
  const target = platformPackage();
  if (target === null) throw new Error(`no workerd build for ${process.platform}/${process.arch}`);
  const binary = path.join(CACHE, 'package', target.binary);
  if (!existsSync(binary)) {
    mkdirSync(CACHE, { recursive: true });
    // `npm pack` downloads the tarball and checks the registry's integrity hash; nothing is installed.
    const [command, args] = npmCommand([
      'pack',
      `${target.name}@${WORKERD_VERSION}`,
      '--pack-destination',
      CACHE,
      '--silent',
    ]);
    await run(command, args, { cwd: CACHE, timeout: 300_000 });
    const tarball = readdirSync(CACHE).find((file) => file.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack produced no tarball');
    await run('tar', ['xzf', tarball], { cwd: CACHE, timeout: 120_000 });
    rmSync(path.join(CACHE, tarball), { force: true });
    if (!existsSync(binary)) throw new Error(`the ${target.name} package has no ${target.binary}`);
  }
  return binary;
}

/** A free loopback port (the WPT runner's workerd listens on one too). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface WorkerdServer {
  url: string;
  pid: number;
  version: string;
  stop(): Promise<void>;
}

/** The same answer as the bench's trivial integration: 200, body `ok`, text/plain. */
const HELLO_WORKER = `export default {
  async fetch() {
    return new Response('ok', { headers: { 'content-type': 'text/plain;charset=UTF-8' } });
  },
};
`;

/** The newest compatibility date the binary supports (`workerd 2026-11-17` from --version). */
export async function compatibilityDateOf(binary: string): Promise<string> {
  const { stdout } = await run(binary, ['--version'], { timeout: 30_000 });
  const compatibilityDate = /(\d{4}-\d{2}-\d{2})/.exec(stdout)?.[1];
  if (compatibilityDate === undefined) throw new Error(`unexpected workerd --version output: ${stdout.trim()}`);
  return compatibilityDate;
}

/**
 * Starts `workerd serve config.capnp` in `dir`; `stop` ends it (SIGTERM, SIGKILL after 3 s) and
 * removes `dir`; the process is killed if this one exits first; `stderr` is its last 4,000 characters.
 */
export function spawnWorkerd(
  binary: string,
  dir: string,
): { child: ChildProcess; stop: () => Promise<void>; stderr: () => string } {
  const child = spawn(binary, ['serve', 'config.capnp'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = () =>
    new Promise<void>((resolve) => {
      process.removeListener('exit', killOnExit);
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
    });
  return { child, stop, stderr: () => stderr };
}

export async function startWorkerd(
  options: { script?: string; outboundToLoopback?: boolean } = {},
): Promise<WorkerdServer> {
  const binary = await workerdBinary();
  const compatibilityDate = await compatibilityDateOf(binary);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'ih-workerd-'));
  writeFileSync(path.join(dir, 'hello.js'), options.script ?? HELLO_WORKER);
  // A worker that fetches the bench's own loopback servers needs an outbound network that allows them
  // (workerd's default allows public addresses only).
  const outbound = options.outboundToLoopback === true;
  const loopbackService = outbound ? ', (name = "loopback", network = (allow = ["local", "private", "public"]))' : '';
  writeFileSync(
    path.join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .hello)${loopbackService} ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const hello :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "hello.js") ],
  compatibilityDate = "${compatibilityDate}",${outbound ? '\n  globalOutbound = "loopback",' : ''}
);
`,
  );
  const { child, stop, stderr } = spawnWorkerd(binary, dir);
  const url = `http://127.0.0.1:${port}/`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`workerd exited with ${child.exitCode}: ${stderr().trim().split('\n').pop() ?? ''}`);
    }
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 150) {
      await stop();
      throw new Error('workerd did not answer within 15 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid!, version: `${WORKERD_VERSION} (${compatibilityDate})`, stop };
}
