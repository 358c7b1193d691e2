// A newcomer's clean shell has no OAUTH_DEMO_* variables: `npm run check` and `npm run host` must
// still accept oauth-demo (the CLI defaults them, and says so), while exported values win.
import { describe, it, expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { DEV_ENV_DEFAULTS } from '../../host/config/dev-env.ts';

const CLI = ['--no-node-snapshot', 'host/cli.ts'];

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST_ADMIN_TOKEN: '' };
  for (const name of Object.keys(DEV_ENV_DEFAULTS)) delete env[name];
  return env;
}

describe('dev defaults of the CLI', () => {
  it('npm run check accepts oauth-demo from a clean environment and names the defaulted variables', () => {
    const run = spawnSync(process.execPath, [...CLI, 'check', 'fixtures/integrations'], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        /dev defaults for unset OAUTH_DEMO_CLIENT_ID, OAUTH_DEMO_CLIENT_SECRET, /.source +
          /OAUTH_DEMO_AUTHORIZE_URL, OAUTH_DEMO_TOKEN_URL/.source,
      ),
    );
    expect(run.stdout).not.toContain(DEV_ENV_DEFAULTS.OAUTH_DEMO_CLIENT_SECRET);
  });

  it('says nothing about them when no loaded integration reads them', () => {
    const run = spawnSync(process.execPath, [...CLI, 'check', 'test/fixtures/lifecycle'], {
      encoding: 'utf8',
      env: { ...cleanEnv(), SETTINGS_DEMO_API_KEY: 'x' },
    });
    expect(run.stdout).toMatch(/integration\(s\) checked/);
    expect(run.stdout).not.toMatch(/dev defaults/);
  });

  it('does not mention variables the user exported', () => {
    const env = { ...process.env, ...DEV_ENV_DEFAULTS, OAUTH_DEMO_CLIENT_ID: 'mine' };
    const run = spawnSync(process.execPath, [...CLI, 'check', 'fixtures/integrations'], { encoding: 'utf8', env });
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(/dev defaults/);
  });

  it('npm run host serves oauth-demo from a clean environment', async () => {
    const child = spawn(process.execPath, [...CLI, 'host', '--port', '0', '--data', ':memory:', '--workers', '1'], {
      env: cleanEnv(),
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 60_000);
        child.stdout.on('data', () => out.includes('listening on') && (clearTimeout(timer), resolve()));
        child.on('exit', (code) => reject(new Error(`host exited ${code}:\n${out}`)));
      });
      expect(out).toMatch(
        new RegExp(
          /^oauth-demo\s+ready\s+http:\/\/127\.0\.0\.1:\d+/.source +
            /\/v1\/integrations\/oauth-demo\/installations\/inst_\w+/.source +
            /  \(organization acme, pending\)$/.source,
          'm',
        ),
      );
      expect(out).toMatch(/dev defaults for unset OAUTH_DEMO_CLIENT_ID/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 90_000);
});
