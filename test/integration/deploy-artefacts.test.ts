// The Dockerfile and the systemd unit start the host that this repository is: the image's layout
// (its COPY lines) runs the ENTRYPOINT, its HEALTHCHECK passes once ready and fails once stopped,
// and the unit passes systemd-analyze verify and starts the host with the same flags.
import { execFile, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_PORT, resolveOptions } from '../../host/config/options.ts';
import { runNode } from '../helpers/cli.ts';
import { dockerfileStages, execForm, healthcheck, instruction, unitKeys } from '../helpers/deploy-files.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const stages = dockerfileStages(join(ROOT, 'Dockerfile'));
const runtime = stages.at(-1)!;
const entrypoint = execForm(instruction(runtime, 'ENTRYPOINT')!);
const cmd = instruction(runtime, 'CMD') === undefined ? [] : execForm(instruction(runtime, 'CMD')!);
const check = healthcheck(instruction(runtime, 'HEALTHCHECK')!);
const stopSignal = instruction(runtime, 'STOPSIGNAL');
const volume = instruction(runtime, 'VOLUME')!.replace(/^\["?|"?\]$/g, '');
const unit = unitKeys(join(ROOT, 'deploy/integration-host.service'));
const unitValue = (key: string): string | undefined => unit.get(key)?.at(-1);

const scratch = mkdtempSync(join(tmpdir(), 'ih-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The healthcheck's exec array as the container would run it, with `port` for the image's port. */
function runHealthcheck(port: number): Promise<number> {
  const [program, ...args] = check.command;
  expect(program).toBe('node');
  const local = args.map((arg) => arg.replace(`127.0.0.1:${DEFAULT_HOST_PORT}/`, `127.0.0.1:${port}/`));
  return new Promise((resolve) =>
    execFile(process.execPath, local, { timeout: 20_000 }, (error) =>
      resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : -1),
    ),
  );
}

/**
 * The final stage's file system under `app` (its WORKDIR): each COPY from the build context, the
 * installed node_modules (this checkout's), and the RUN's `.data` link to the volume (`data`).
 */
function layOutImage(app: string, data: string): void {
  for (const entry of runtime.filter((item) => item.keyword === 'COPY')) {
    const parts = entry.args.split(/\s+/);
    const dest = parts.at(-1)!;
    if (parts[0].startsWith('--from=')) {
      expect(dest).toBe('./node_modules');
      symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
      continue;
    }
    for (const source of parts.slice(0, -1)) {
      expect(existsSync(join(ROOT, source)), `the Dockerfile copies ${source}, which does not exist`).toBe(true);
      const target = dest.endsWith('/') ? join(app, dest, basename(source)) : join(app, dest);
      cpSync(join(ROOT, source), target, { recursive: true });
    }
  }
  const link = /ln -s (\S+) \/app\/\.data\b/.exec(
    runtime
      .filter((item) => item.keyword === 'RUN')
      .map((item) => item.args)
      .join('\n'),
  );
  expect(link?.[1], 'the image links /app/.data to the volume').toBe(volume);
  symlinkSync(data, join(app, '.data'));
}

describe('the Dockerfile', () => {
  it('builds on the Node 24 that package.json pins', () => {
    const pinned = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    ).dependencies.node;
    expect(instruction(stages[0], 'ARG')).toBe(`NODE_VERSION=${pinned}`);
    expect(stages.slice(1).every((stage) => instruction(stage, 'FROM')!.startsWith('node:${NODE_VERSION}-'))).toBe(
      true,
    );
  });

  it('installs every package the copied sources import (it omits devDependencies)', () => {
    const dependencies = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
        .dependencies,
    );
    const copied = runtime
      .filter((item) => item.keyword === 'COPY' && !item.args.startsWith('--from='))
      .map((item) => item.args.split(/\s+/)[0]);
    const sources = copied.flatMap((source) =>
      source.includes('.')
        ? []
        : readdirSync(join(ROOT, source), { recursive: true, encoding: 'utf8' })
            .filter((file) => /\.tsx?$/.test(file))
            .map((file) => join(ROOT, source, file)),
    );
    const packages = new Set<string>();
    for (const file of sources) {
      for (const match of readFileSync(file, 'utf8').matchAll(
        /^(?:import|export)(?!\s+type\b)[^;]*?\sfrom\s+'([^.'][^']*)'|\bimport\('([^.'][^']*)'\)/gm,
      )) {
        const specifier = match[1] ?? match[2];
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
      }
    }
    const missing = [...packages].filter(
      (name) =>
        !name.startsWith('node:') &&
        !builtinModules.includes(name) &&
        !dependencies.includes(name) &&
        name !== 'sandbox-api',
    );
    expect(sources.length).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it(
    'runs as a non-root user, listens on every interface, exposes the API and console ports, stops with a signal ' +
      'the host handles',
    () => {
      expect(instruction(runtime, 'USER')).not.toMatch(/^(root|0)(:|$)/);
      expect(instruction(runtime, 'WORKDIR')).toBe('/app');
      expect(entrypoint.slice(0, 4)).toEqual(['node', '--no-node-snapshot', 'host/cli.ts', 'host']);
      expect(entrypoint[entrypoint.indexOf('--bind') + 1]).toBe('0.0.0.0');
      expect(instruction(runtime, 'EXPOSE')!.split(/\s+/)).toEqual([
        String(DEFAULT_HOST_PORT),
        String(DEFAULT_HOST_PORT + 2),
      ]);
      expect(['SIGTERM', 'SIGINT']).toContain(stopSignal);
      expect(check.command.join(' ')).toContain(`http://127.0.0.1:${DEFAULT_HOST_PORT}/ready`);
    },
  );

  it('starts the host from its ENTRYPOINT in its layout, its store on the volume; the HEALTHCHECK passes once ready ' +
    'and fails once it stopped', async () => {
    const app = join(scratch, 'app');
    const data = join(scratch, 'volume');
    mkdirSync(app);
    mkdirSync(data);
    layOutImage(app, data);
    // Substituted for this test, and only these: loopback instead of every interface (tests open
    // loopback sockets only) and a free port instead of 8787, which another host may hold here.
    const args = entrypoint.slice(1).map((arg, index, all) => (all[index - 1] === '--bind' ? '127.0.0.1' : arg));
    const host = runNode([...args, ...cmd, '--port', '0', '--workers', '1'], {
      cwd: app,
      env: { ...process.env, HOST_ADMIN_TOKEN: '', DATABASE_URL: '' },
    });
    try {
      const url = (await host.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1];
      expect(host.stdout).toContain('store: sqlite .data/host.db');
      expect(existsSync(join(data, 'host.db'))).toBe(true);
      expect(await runHealthcheck(Number(new URL(url).port))).toBe(0);
      expect(await host.stop(stopSignal as NodeJS.Signals)).toBe(0);
      expect(await runHealthcheck(Number(new URL(url).port))).not.toBe(0);
    } finally {
      await host.stop('SIGKILL');
    }
  }, 90_000);
});

describe('the systemd unit', () => {
  const execStart = unitValue('Service.ExecStart')!.split(/\s+/);

  it("starts the pinned Node in its working directory with the Dockerfile's flags, then the operator's", () => {
    expect(execStart[0]).toBe(`${unitValue('Service.WorkingDirectory')}/node_modules/.bin/node`);
    expect(execStart.slice(1)).toEqual([...entrypoint.slice(1), '$HOST_ARGS']);
  });

  it('keeps its state where the image keeps its volume, as a dedicated user, restarted on failure', () => {
    expect(`/var/lib/${unitValue('Service.StateDirectory')}`).toBe(volume);
    expect(unitValue('Service.User')).toMatch(/^(?!root$)\S+$/);
    expect(unitValue('Service.Restart')).toBe('on-failure');
    expect(unitValue('Service.EnvironmentFile')).toMatch(/^\//);
  });

  it('signals the host alone, as the container does, and waits for its graceful shutdown', () => {
    expect(unitValue('Service.KillSignal')).toBe(stopSignal);
    // The workers must outlive the signal: the host stops them after its requests finish.
    expect(unitValue('Service.KillMode')).toBe('mixed');
    const seconds = Number(/^(\d+)s?$/.exec(unitValue('Service.TimeoutStopSec')!)?.[1]);
    // The request grace, then webhook attempts in flight (their 10 s timeout plus 1 s).
    expect(seconds * 1000).toBeGreaterThan(resolveOptions({}).shutdownGraceMs + 11_000);
  });

  it('hardens without denying V8 its JIT', () => {
    expect(unitValue('Service.NoNewPrivileges')).toBe('yes');
    expect(unitValue('Service.ProtectSystem')).toBe('strict');
    expect(unit.has('Service.MemoryDenyWriteExecute')).toBe(false);
  });

  it('passes systemd-analyze verify', (context) => {
    const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (probe.error !== undefined) {
      console.log(`skipped: systemd-analyze is not available here (${probe.error.message})`);
      context.skip();
    }
    // verify requires ExecStart's program to exist: this machine's Node 24 stands in for
    // /opt/integration-host/node_modules/.bin/node, the only substitution.
    const copy = join(scratch, 'integration-host.service');
    writeFileSync(
      copy,
      readFileSync(join(ROOT, 'deploy/integration-host.service'), 'utf8').replace(
        `ExecStart=${execStart[0]} `,
        `ExecStart=${process.execPath} `,
      ),
    );
    const verify = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    expect({ status: verify.status, output: `${verify.stdout}${verify.stderr}` }).toEqual({ status: 0, output: '' });
  });
});
