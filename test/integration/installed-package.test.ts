// The package as an author gets it: `npm pack` of this repository installed into an empty folder
// with the machine's npm, then used only through `npx integration-host`: version, help, a typo,
// new, tsc, check, test, and host serving the new integration. Loopback only; needs the registry
// (or npm's cache) for the package's dependencies, as any install does.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const root = mkdtempSync(path.join(tmpdir(), 'ih-installed-'));
const project = path.join(root, 'project');
// The machine's npm, npx and Node, as an author has them: `npm test` puts this repository's
// node_modules/.bin (Node 24) first on PATH, and sets npm_* variables; neither is the author's.
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'),
);
env.PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((entry) => !entry.includes(`${path.sep}node_modules${path.sep}.bin`))
  .join(path.delimiter);
Object.assign(env, {
  HOST_ADMIN_TOKEN: '',
  DATABASE_URL: '',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
});
delete env.INTEGRATION_HOST_INVOCATION;

function sh(command: string, args: string[], cwd = project): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
}

function tool(...args: string[]): SpawnSyncReturns<string> {
  return sh('npx', ['--no-install', 'integration-host', ...args]);
}

beforeAll(() => {
  const packed = sh('npm', ['pack', '--pack-destination', root], REPO);
  expect(packed.status, packed.stderr).toBe(0);
  const tarball = path.join(root, packed.stdout.trim().split('\n').at(-1)!);
  expect(sh('mkdir', ['-p', project], root).status).toBe(0);
  expect(sh('npm', ['init', '-y']).status).toBe(0);
  const installed = sh('npm', ['install', '--prefer-offline', tarball]);
  expect(installed.status, installed.stderr).toBe(0);
}, 600_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the packed package installed into an empty folder', () => {
  it('prints its version', () => {
    const run = tool('--version');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(VERSION);
  }, 60_000);

  it('answers --help for the tool and every command, with options, defaults and an example', () => {
    const top = tool('--help');
    expect(top.status).toBe(0);
    for (const command of ['host', 'dev', 'new', 'check', 'test', 'logs', 'secrets'])
      expect(top.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const host = tool('host', '--help');
    expect(host.stdout).toMatch(/--port <port> +the HTTP API port[\s\S]*default: 8787/);
    expect(host.stdout).toMatch(/--admin-token <token>[\s\S]*env:\s+HOST_ADMIN_TOKEN/);
    expect(host.stdout).toMatch(/Examples:\n {2}npx integration-host host /);
    for (const command of ['dev', 'new', 'check', 'test', 'logs', 'secrets']) {
      const help = tool(command, '--help');
      expect(help.status, `${command} --help`).toBe(0);
      expect(help.stdout, `${command} --help`).toMatch(
        new RegExp(`^Usage: integration-host ${command}[\\s\\S]*Examples:\\n {2}`, 'm'),
      );
    }
  }, 180_000);

  it('suggests the command or option a typo meant, exiting 2', () => {
    const command = tool('chek');
    expect(command.status).toBe(2);
    expect(command.stderr).toMatch(/unknown command 'chek'\n\(Did you mean check\?\)/);
    const option = tool('host', '--prot', '9000');
    expect(option.status).toBe(2);
    expect(option.stderr).toMatch(/unknown option '--prot'\n\(Did you mean --port\?\)/);
  }, 60_000);

  describe('new greeter', () => {
    let made: SpawnSyncReturns<string>;
    beforeAll(() => {
      made = tool('new', 'greeter');
    }, 120_000);

    it('writes the integration with a tsconfig.json and a .gitignore, and says what to run next with npx', () => {
      expect(made.status, made.stderr).toBe(0);
      for (const file of [
        'platform-manifest.yaml',
        'src/index.ts',
        'test/index.test.mts',
        'tsconfig.json',
        '.gitignore',
      ]) {
        expect(existsSync(path.join(project, 'integrations/greeter', file)), file).toBe(true);
      }
      expect(readFileSync(path.join(project, 'integrations/greeter/test/index.test.mts'), 'utf8')).toContain(
        "from 'integration-host/testing'",
      );
      expect(readFileSync(path.join(project, 'integrations/greeter/.gitignore'), 'utf8')).toMatch(/^\.dev\.vars$/m);
      expect(made.stdout).toMatch(/next:\n {2}npx integration-host dev +serves it/);
    }, 60_000);

    it('type-checks clean under its own tsconfig.json with tsc --noEmit, as every other template does', () => {
      const run = sh(path.join(project, 'node_modules/.bin/tsc'), ['--noEmit', '-p', 'integrations/greeter']);
      expect(run.status, run.stdout + run.stderr).toBe(0);
      // The check is real: a wrong use of sandbox-api's types in src/ fails it, naming the line.
      const broken = path.join(project, 'integrations/greeter/src/broken.ts');
      writeFileSync(
        broken,
        "import { createIntegration } from 'sandbox-api';\nexport const wrong: number = createIntegration({});\n",
      );
      const failing = sh(path.join(project, 'node_modules/.bin/tsc'), ['--noEmit', '-p', 'integrations/greeter']);
      rmSync(broken);
      expect(failing.status).not.toBe(0);
      expect(failing.stdout).toMatch(/src\/broken\.ts\(2,/);
      // Elsewhere, so that check and test below see greeter alone.
      for (const template of ['block', 'oauth', 'webhook-consumer']) {
        expect(tool('new', `t-${template}`, '--template', template, '--dir', 'more').status).toBe(0);
        const typed = sh(path.join(project, 'node_modules/.bin/tsc'), ['--noEmit', '-p', `more/t-${template}`]);
        expect(typed.status, `${template}: ${typed.stdout}${typed.stderr}`).toBe(0);
      }
    }, 120_000);

    it('passes check', () => {
      const run = tool('check');
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(
        /1 integration\(s\) checked in integrations: 1 ready, 0 invalid, 0 error\(s\), 0 type error\(s\)/,
      );
    }, 120_000);

    it('passes its own test, which imports the harness from the package', () => {
      const run = tool('test');
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/ℹ pass 2\nℹ fail 0/);
    }, 180_000);

    it('is served by host, greeter answering and /openapi.json ' +
      'describing the API, until SIGTERM stops it', async () => {
      // The command npx runs, started directly so that the signal reaches it and not npm.
      const child = spawn(
        path.join(project, 'node_modules/.bin/integration-host'),
        ['host', '--port', '0', '--no-console', '--data', ':memory:', '--workers', '1'],
        { cwd: project, env },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const look = () => {
            const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
            if (match) resolve(match[1]);
          };
          child.stdout.on('data', look);
          void exited.then((code) => reject(new Error(`host exited ${code}:\n${out}`)));
        });
        const endpoint = /^greeter +ready +(http:\S+)/m.exec(out)?.[1];
        expect(endpoint, out).toBeDefined();
        const greeting = await fetch(`${endpoint}?name=Ada`);
        expect(await greeting.json()).toEqual({ message: 'Hello, Ada!' });
        const openapi = await fetch(`${url}/openapi.json`);
        expect(openapi.status).toBe(200);
        const document = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
        expect(document.openapi).toMatch(/^3\./);
        expect(Object.keys(document.paths)).toContain('/v1/integrations');
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    }, 180_000);
  });
});
