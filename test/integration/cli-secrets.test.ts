// `npm run secrets`: --help answers; set reads the value from stdin only (an argument is refused),
// needs a key and says how to make one; the database file never holds the value in the clear;
// list shows names, when and how set, never values; rotate re-encrypts under the newest key so the
// old one can go; unset removes; and a host already running on the same file picks a change up.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.ts';
import { startTestHost, waitFor } from '../helpers/host.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'cli-secrets-'));
const data = path.join(dir, 'host.db');
const VALUE = 'cli-secret-value-4f1d9c';
const KEY_1 = `1:${Buffer.alloc(32, 11).toString('base64')}`;
const KEY_2 = `2:${Buffer.alloc(32, 12).toString('base64')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the command without blocking this process (a host of this test may be serving meanwhile). */
async function secrets(args: string[], options: { input?: string; keys?: string } = {}) {
  const env = { ...process.env, HOST_SECRETS_KEYS: options.keys ?? '', HOST_SECRETS_KEYS_FILE: '', DATABASE_URL: '' };
  const child = spawn(process.execPath, [...CLI, 'secrets', ...args, '--data', data], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { status, stdout, stderr, out: stdout + stderr };
}

/** Every byte of the database and its WAL, as text. */
function databaseBytes(): string {
  return readdirSync(dir)
    .filter((name) => name.startsWith('host.db'))
    .map((name) => readFileSync(path.join(dir, name)).toString('latin1'))
    .join('');
}

describe('npm run secrets', () => {
  it('answers --help with every command and exits 0', async () => {
    const run = spawnSync(process.execPath, [...CLI, 'secrets', '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    for (const command of [
      'set <integration> <name>',
      'list [integration]',
      'unset|delete <integration> <name>',
      'rotate',
      'new-key',
    ])
      expect(run.stdout).toContain(command);
    expect(run.stdout).toMatch(/--store <url> +a PostgreSQL store instead \(env:\s+DATABASE_URL\)/);
    expect(run.stdout).toMatch(/the value is\s+read from stdin/);
  });

  it('refuses a value given on the command line, before anything else', async () => {
    const run = await secrets(['set', 'secret-echo', 'VENDOR_CLIENT_ID', VALUE], { keys: KEY_1 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/set reads the value from stdin, never from the command line/);
  });

  it('refuses to store without a key, saying how to make one; new-key prints one', async () => {
    const run = await secrets(['set', 'secret-echo', 'VENDOR_CLIENT_ID'], { input: VALUE });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /no secrets key is configured; set HOST_SECRETS_KEYS=1:<key> .* npm run secrets -- new-key prints a fresh one/,
    );
    const made = await secrets(['new-key']);
    expect(made.status).toBe(0);
    expect(made.stdout).toMatch(/^1:[A-Za-z0-9+/]{43}=\n$/);
    expect(made.stderr).toMatch(/keep a copy/);
    expect((await secrets(['new-key'], { keys: KEY_1 })).stdout).toMatch(/^2:/);
  });

  it('stores a piped value (one final newline dropped) sealed: the file never holds it in the clear', async () => {
    const run = await secrets(['set', 'secret-echo', 'VENDOR_CLIENT_ID'], { input: `${VALUE}\n`, keys: KEY_1 });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^stored VENDOR_CLIENT_ID for secret-echo in sqlite .*host\.db \(key 1\)/);
    expect(run.out).not.toContain(VALUE);
    expect(databaseBytes()).not.toContain(VALUE);
    expect(databaseBytes()).toContain('VENDOR_CLIENT_ID');
  });

  it('lists names, when and how each was set and the key, never a value; a missing key is said per row', async () => {
    const run = await secrets(['list'], { keys: KEY_1 });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^integration\s+name\s+set at\s+set by\s+key\n/);
    expect(run.stdout).toMatch(/^secret-echo\s+VENDOR_CLIENT_ID\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+cli\s+1$/m);
    expect(run.out).not.toContain(VALUE);
    const keyless = await secrets(['list', 'secret-echo']);
    expect(keyless.stdout).toMatch(/1 \(cannot decrypt\)/);
    expect(keyless.stdout).toMatch(
      /secret-echo VENDOR_CLIENT_ID: it was encrypted with key 1, which this host does not have/,
    );
    expect((await secrets(['list', 'nobody'], { keys: KEY_1 })).stdout).toMatch(
      /^no secrets stored for nobody in sqlite/,
    );
  });

  it('refuses bad names with the rule, touching nothing', async () => {
    for (const [integration, name] of [
      ['../etc', 'X'],
      ['secret-echo', 'X-Y'],
      ['secret-echo', '$(reboot)'],
    ]) {
      const run = await secrets(['set', integration, name], { input: 'v', keys: KEY_1 });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/must be/);
    }
  });

  it('re-encrypts every value under the newest key, after which the old key can go', async () => {
    const run = await secrets(['rotate'], { keys: `${KEY_1},${KEY_2}` });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/re-encrypted 1 value\(s\) with key 2; 0 already used it/);
    expect((await secrets(['list'], { keys: KEY_2 })).stdout).toMatch(/VENDOR_CLIENT_ID\s+\S+ \S+ UTC\s+cli\s+2$/m);
    const stuck = await secrets(['rotate'], { keys: `3:${Buffer.alloc(32, 13).toString('base64')}` });
    expect(stuck.status).toBe(1);
    expect(stuck.stdout).toMatch(/cannot re-encrypt VENDOR_CLIENT_ID of secret-echo: it was encrypted with key 2/);
  });

  it('reaches a host already running on the same file, then unset takes it away again', async () => {
    const host = await startTestHost({
      dirs: ['test/fixtures/secret-echo'],
      dataPath: data,
      secretsPollMs: 100,
      env: { ...process.env, HOST_SECRETS_KEYS: KEY_2, SECRET_ECHO_OWN: 'own' },
    });
    try {
      const status = async () =>
        ((await (await host.admin('/v1/integrations/secret-echo')).json()) as { status: string }).status;
      expect(await status()).toBe('ready');
      const endpoint = host.devInstallations.find((dev) => dev.integration === 'secret-echo')!.installation!.urls
        .publicEndpoint;
      expect(((await (await fetch(endpoint)).json()) as { secrets: Record<string, string> }).secrets.VENDOR).toBe(
        VALUE,
      );
      expect(
        (await secrets(['set', 'secret-echo', 'VENDOR_CLIENT_ID'], { input: 'replaced-from-the-cli', keys: KEY_2 }))
          .stdout,
      ).toMatch(/^replaced/);
      await waitFor(
        async () =>
          ((await (await fetch(endpoint)).json()) as { secrets: Record<string, string> }).secrets.VENDOR ===
          'replaced-from-the-cli',
      );
      const removed = await secrets(['unset', 'secret-echo', 'VENDOR_CLIENT_ID']);
      expect(removed.status).toBe(0);
      await waitFor(async () => (await status()) === 'invalid');
      expect((await secrets(['delete', 'secret-echo', 'VENDOR_CLIENT_ID'])).status).toBe(1);
      expect(host.logs.join('\n')).not.toMatch(new RegExp(`${VALUE}|replaced-from-the-cli`));
    } finally {
      await host.close();
    }
  }, 120_000);
});
