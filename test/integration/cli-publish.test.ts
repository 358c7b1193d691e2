// The publishing commands as an author and an operator use them: `publishers issue` prints a token
// once, `publish` checks and uploads a folder from outside the host's --dir (with the npm package
// its bundle reads: hono, from the repository's node_modules), `versions` lists, `rollback` moves
// back, `publishers revoke` makes the token refused; every failure is one line saying what to do.
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN, startTestHost, type TestHost } from '../helpers/host.ts';

let host: TestHost;
let token = '';
let publisherId = '';

async function cli(args: string[], env: Record<string, string> = {}) {
  const run = runCli(args, { env: { ...process.env, HOST_ADMIN_TOKEN: '', ...env } });
  // 'close' comes after the last output, where 'exit' may not.
  const closed = new Promise((resolve) => run.child.once('close', resolve));
  const code = await run.exited;
  await closed;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/env-echo'], workers: 1 });
}, 120_000);
afterAll(async () => {
  await host?.close();
});

describe('the publishing commands', () => {
  it('issue a publisher token, printed once with how to use it', async () => {
    const issued = await cli(
      ['publishers', 'issue', '--organization', 'acme', '--label', 'cli test', '--host', host.url],
      {
        HOST_ADMIN_TOKEN: ADMIN_TOKEN,
      },
    );
    expect(issued.code, issued.stderr).toBe(0);
    [, publisherId, token] = /publisher (pub_[0-9a-f]{16}) for organization acme.*\n(ihp_\S+)\n/.exec(issued.stdout)!;
    expect(token).toMatch(/^ihp_pub_/);
    const listed = await cli(['publishers', 'list', '--host', host.url, '--admin-token', ADMIN_TOKEN]);
    expect(listed.stdout).toContain(`${publisherId}  acme`);
    expect(listed.stdout).not.toContain(token);
  });

  it('publish a folder that imports an npm package, then a second version, list them and roll back', async () => {
    const author = mkdtempSync(path.join(tmpdir(), 'author-'));
    const folder = path.join(author, 'hono-streams');
    cpSync('test/fixtures/web-libraries/hono-streams', folder, { recursive: true });
    // Where the author keeps local values: never uploaded.
    writeFileSync(path.join(folder, '.dev.vars'), 'HONO_STREAMS_SECRET=local\n');
    const env = { INTEGRATION_HOST_TOKEN: token, NODE_PATH: '' };
    // The author's folder has no node_modules of its own: hono resolves through the repository's,
    // as an npm workspace hoists it; publish uploads the files the bundle read.
    const linked = path.join(author, 'node_modules');
    cpSync('node_modules/hono', path.join(linked, 'hono'), { recursive: true });
    const first = await cli(['publish', folder, '--host', host.url], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^published hono-streams version 1 \(\d+ files, .*: it serves now$/m);
    const again = await cli(['publish', folder, '--host', host.url], env);
    expect(again.stdout).toContain('hono-streams version 1 at');
    expect(again.stdout).toContain('has the same files: nothing new');
    writeFileSync(path.join(folder, 'extra.txt'), 'a change\n');
    const second = await cli(['publish', folder, '--host', host.url], env);
    expect(second.stdout).toContain('published hono-streams version 2');
    const versions = await cli(['versions', 'hono-streams', '--host', host.url], env);
    expect(versions.stdout).toMatch(/^\* 2 .*publisher:pub_/m);
    expect(versions.stdout).toMatch(/^ {2}1 /m);
    const back = await cli(['rollback', 'hono-streams', '1', '--host', host.url], env);
    expect(back.stdout).toContain('hono-streams version 1 is current');
    expect(host.integrations.find((entry) => entry.name === 'hono-streams')?.published?.version).toBe(1);
  });

  it('say what to do when the folder does not load, the token is missing, or the host is not there', async () => {
    const broken = mkdtempSync(path.join(tmpdir(), 'broken-'));
    writeFileSync(path.join(broken, 'platform-manifest.yaml'), 'name: broken\n');
    const invalid = await cli(['publish', broken, '--host', host.url], { INTEGRATION_HOST_TOKEN: token });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('broken does not load (above); nothing was uploaded');
    const noToken = await cli(['versions', 'hono-streams', '--host', host.url], { INTEGRATION_HOST_TOKEN: '' });
    expect(noToken.stderr).toContain('pass --token or set INTEGRATION_HOST_TOKEN');
    const nobody = await cli(['versions', 'x', '--host', 'http://127.0.0.1:9'], { INTEGRATION_HOST_TOKEN: token });
    expect(nobody.stderr).toContain('no host answers at http://127.0.0.1:9');
  });

  it('revoke a publisher: its token is refused from then on', async () => {
    const revoked = await cli(['publishers', 'revoke', publisherId, '--host', host.url, '--admin-token', ADMIN_TOKEN]);
    expect(revoked.stdout).toContain(`publisher ${publisherId} revoked`);
    const refused = await cli(['versions', 'hono-streams', '--host', host.url], { INTEGRATION_HOST_TOKEN: token });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`publisher token ${publisherId} was revoked`);
  });
});
