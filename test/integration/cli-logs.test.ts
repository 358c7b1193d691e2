// `npm run logs -- <integration>` follows a running host: one readable line per dispatch with its
// console lines (terminal escapes shown, never run), only the integration (or installation) asked
// for, and an end line when the host shuts down; mistakes are one line with the fix.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestHost, type TestHost } from '../helpers/host.ts';
import { runCli } from '../helpers/cli.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';

const temp = new TempDirs();
let host: TestHost | undefined;
let root: string;

const CHATTY = `import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request) {
    const who = new URL(request.url).searchParams.get('who') ?? 'nobody';
    console.log('hello', who);
    console.warn('colour \\u001b[31mred\\u001b[0m stays text');
    return Response.json({ who });
  },
});
`;

beforeAll(async () => {
  root = temp.make({
    'chatty/platform-manifest.yaml':
      'name: chatty\ntitle: Chatty\ndescription: Logs.\norganization: acme\nvisibility: public\nscopes: ' +
      '[]\nscript: src/index.ts\n',
    'chatty/src/index.ts': CHATTY,
    'quiet/platform-manifest.yaml':
      'name: quiet\ntitle: Quiet\ndescription: Answers.\norganization: acme\nvisibility: public\nscopes: ' +
      '[]\nscript: src/index.ts\n',
    'quiet/src/index.ts':
      "import { createIntegration } from 'sandbox-api';\nexport default createIntegration({ fetch: () => " +
      'Response.json({ quiet: true }) });\n',
  });
  host = await startTestHost({ dirs: [root], cacheDir: `${root}/.cache` });
}, 60_000);

afterAll(async () => {
  await host?.close();
  temp.cleanup();
});

/** A loopback port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function finished(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const run = runCli(args);
  const status = await run.exited;
  return { status, stderr: run.stderr };
}

const endpoint = (name: string) =>
  host!.devInstallations.find((dev) => dev.integration === name)!.installation!.urls.publicEndpoint;

describe('npm run logs', () => {
  it('prints each dispatch of the integration with its console lines, as it happens', async () => {
    const logs = runCli(['logs', 'chatty', '--url', host!.url, '--admin-token', ADMIN_TOKEN]);
    try {
      await logs.waitFor(/following chatty on http:\/\/127\.0\.0\.1:\d+; Ctrl-C to stop/);
      await fetch(`${endpoint('quiet')}?who=q`);
      const answer = await fetch(`${endpoint('chatty')}?who=ada`);
      const requestId = answer.headers.get('x-request-id')!;
      const [line] = await logs.waitFor(
        new RegExp(
          /^\d\d:\d\d:\d\d\.\d+ chatty inst_\w+ fetch 200 \d+ ms evt_\w+ req=\S+\n/.source +
            /  log   hello ada\n/.source +
            /  warn  colour \\x1b\[31mred\\x1b\[0m stays text\n/.source,
          'm',
        ),
      );
      expect(line).toContain(`req=${requestId}`);
      expect(logs.stdout).not.toContain('quiet');
      expect(logs.stdout).not.toContain('\u001b');
    } finally {
      await logs.stop();
    }
  }, 40_000);

  it('follows one installation with --installation', async () => {
    const created = await host!.admin('/v1/integrations/chatty/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    });
    const other = await created.json();
    const logs = runCli([
      'logs',
      'chatty',
      '--installation',
      other.id,
      '--url',
      host!.url,
      '--admin-token',
      ADMIN_TOKEN,
    ]);
    try {
      await logs.waitFor(/following chatty \(installation inst_\w+\)/);
      await fetch(`${endpoint('chatty')}?who=first`);
      await fetch(`${other.urls.publicEndpoint}?who=second`);
      await logs.waitFor(/hello second/);
      expect(logs.stdout).not.toContain('hello first');
    } finally {
      await logs.stop();
    }
  }, 40_000);

  it('names an unknown integration, a wrong token and a missing host in one line each', async () => {
    // Asynchronous children: the host answering them runs in this very process.
    const unknown = await finished(['logs', 'nope', '--url', host!.url, '--admin-token', ADMIN_TOKEN]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(
      new RegExp(
        /^error: integration "nope" not found /.source +
          /\(at http:\/\/127\.0\.0\.1:\d+; GET \/v1\/integrations lists what it serves\)\n$/.source,
      ),
    );
    const wrong = await finished(['logs', 'chatty', '--url', host!.url, '--admin-token', 'not-the-token-0123456789']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(
      new RegExp(
        /^error: the host at http:\/\/127\.0\.0\.1:\d+ refused the admin token \(403\): /.source +
          /pass --admin-token with the token it printed, or set HOST_ADMIN_TOKEN\n$/.source,
      ),
    );
    const closed = await freePort();
    const nobody = await finished([
      'logs',
      'chatty',
      '--url',
      `http://127.0.0.1:${closed}`,
      '--admin-token',
      ADMIN_TOKEN,
    ]);
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toMatch(
      new RegExp(
        /^error: nothing listens at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): /.source +
          /check the address the host printed \(its "listening on" line\), /.source +
          /or start a dev host with npm run dev\n$/.source,
      ),
    );
    const missing = await finished(['logs']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(
      /^error: missing required argument 'integration'\n\(npm run <command> -- --help shows the usage\)\n/,
    );
  }, 40_000);

  it('says that no dev host is running when nothing names a host, and when the recorded one stopped', async () => {
    // A folder where npm run dev never ran: no session file, no flags, no HOST_ADMIN_TOKEN.
    const fresh = temp.make();
    const none = runCli(['logs', 'greeter'], { cwd: fresh, env: { ...process.env, HOST_ADMIN_TOKEN: '' } });
    expect(await none.exited).toBe(1);
    expect(none.stderr).toBe(
      'error: no dev host is running here (.data/dev-session.json does not exist): start one with npm run dev (in ' +
        'another terminal, in this folder), or pass --url and --admin-token to follow another host\n',
    );
    // A session file left by a dev host that is gone.
    const stale = temp.make({
      '.data/dev-session.json': JSON.stringify({
        url: `http://127.0.0.1:${await freePort()}`,
        adminToken: ADMIN_TOKEN,
        pid: 1,
      }),
    });
    const gone = runCli(['logs', 'greeter'], { cwd: stale, env: { ...process.env, HOST_ADMIN_TOKEN: '' } });
    expect(await gone.exited).toBe(1);
    expect(gone.stderr).toMatch(
      new RegExp(
        /^error: the dev host recorded in \.data\/dev-session\.json is not running any more /.source +
          /\(nothing listens at http:\/\/127\.0\.0\.1:\d+, ECONNREFUSED\): /.source +
          /start it again with npm run dev\n$/.source,
      ),
    );
  }, 40_000);

  it('says so and exits 0 when the host shuts down', async () => {
    const logs = runCli(['logs', 'quiet', '--url', host!.url, '--admin-token', ADMIN_TOKEN]);
    await logs.waitFor(/following quiet/);
    await host!.close();
    host = undefined;
    expect(await logs.exited).toBe(0);
    expect(logs.stdout).toMatch(/the host closed the stream \(it shut down\)\n$/);
  }, 40_000);
});
