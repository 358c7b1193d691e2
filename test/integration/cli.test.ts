// The two commands a newcomer runs: `npm run check` (exit codes, pointer messages) and
// `npm run host` (startup table, admin token, listening line, a working public endpoint).
import { describe, it, expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const CLI = ['--no-node-snapshot', 'host/cli.ts'];

describe('npm run check', () => {
  it('exits 0 on the good fixtures', () => {
    const run = spawnSync(process.execPath, [...CLI, 'check', 'fixtures/integrations'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    // Every fixture ready, however many there are.
    expect(run.stdout).toMatch(
      /(\d+) integration\(s\) checked in fixtures\/integrations: \1 ready, 0 invalid, 0 error\(s\)/,
    );
  });

  it('exits 1 with file: /pointer: message lines on broken manifests', () => {
    const run = spawnSync(process.execPath, [...CLI, 'check', 'fixtures/integrations-bad'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      'fixtures/integrations-bad/bad-visibility/platform-manifest.yaml: /visibility: must be one of private, ' +
        'unlisted, public (got "secret")',
    );
    expect(run.stdout).toMatch(
      /fixtures\/integrations-bad\/imports-node-fs\/platform-manifest\.yaml: \/script: .*node:fs/,
    );
    // A YAML syntax error points at its cause (the list never closed), with a code frame.
    expect(run.stdout).toContain(
      [
        'fixtures/integrations-bad/yaml-syntax/platform-manifest.yaml:6:9: error: invalid YAML: the [ list that ' +
          'starts here is never closed (the parser read on to line 7: deficient indentation); end it with ]',
        '  6 | scopes: [space:content:read',
        '    |         ^',
        '',
      ].join('\n'),
    );
  });

  it('explains a missing folder argument (where ./integrations does not exist)', () => {
    const run = spawnSync(
      process.execPath,
      [...CLI.slice(0, 1), fileURLToPath(new URL('../../host/cli.ts', import.meta.url)), 'check'],
      { encoding: 'utf8', cwd: tmpdir() },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/check needs at least one folder of integrations/);
  });
});

describe('npm run host', () => {
  it('rejects an unknown flag with usage', () => {
    const run = spawnSync(process.execPath, [...CLI, 'host', '--bogus'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: unknown option '--bogus'\n\(npm run <command> -- --help shows the usage\)\n$/);
  });

  it('prints the table, the admin token and the listening line, and serves hello', async () => {
    const child = spawn(process.execPath, [...CLI, 'host', '--port', '0', '--data', ':memory:', '--workers', '2'], {
      env: { ...process.env, HOST_ADMIN_TOKEN: '' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 60_000);
        child.stdout.on('data', () => out.includes('listening on') && (clearTimeout(timer), resolve()));
        child.on('exit', (code) => reject(new Error(`host exited ${code}:\n${out}`)));
      });
      expect(out).toMatch(/^integration\s+status\s+public endpoint \/ problems$/m);
      expect(out).toMatch(
        new RegExp(
          /^hello\s+ready\s+http:\/\/127\.0\.0\.1:\d+/.source +
            /\/v1\/integrations\/hello\/installations\/inst_\w+/.source +
            /  \(organization acme, active\)$/.source,
          'm',
        ),
      );
      expect(out).toMatch(/^admin token: \S{16,}\s+\(generated for this run/m);
      const endpoint = out.match(/http:\/\/127\.0\.0\.1:\d+\/v1\/integrations\/hello\/installations\/inst_\w+/)![0];
      expect(await (await fetch(endpoint, { method: 'POST' })).json()).toEqual({ received: true });
      expect((await fetch(endpoint)).status).toBe(405);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 90_000);
});
