// `npm run dev` in a temp folder, the way an author uses it: edit the script and the next request
// gets the new code (no restart, one terminal line); a change that breaks the build or the
// manifest prints the problems while the last good build keeps serving (the listing shows both);
// a new integration folder is served as soon as it appears; `npm run logs` finds the dev host.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from '../helpers/cli.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const TOKEN = 'dev-loop-test-token-0123456789';
const cwd = mkdtempSync(path.join(tmpdir(), 'ih-dev-'));

const manifest = (name: string, extra = '') =>
  `name: ${name}\ntitle: Greeter\ndescription: Greets.\norganization: acme\nvisibility: public\nscopes: ` +
  `[]\nscript: src/index.ts\n${extra}`;
const script = (greeting: string) =>
  `import { createIntegration } from 'sandbox-api';\nimport { greet } from './greet.ts';\ndeclare const MODE: ` +
  `string;\nexport default createIntegration({\n  async fetch(request) {\n    console.log('greeting ` +
  `with', ${JSON.stringify(greeting)});\n    if (new URL(request.url).searchParams.has('mode')) return ` +
  `Response.json({ mode: MODE });\n    return Response.json({ message: greet(${JSON.stringify(greeting)}) });\n  ` +
  `},\n});\n`;

function write(rel: string, text: string): void {
  const file = path.join(cwd, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

let dev: CliProcess;
let endpoint: string;
let url: string;

/** Polls `read` until `accept` holds: condition-based, generous for a busy machine (isolate start-up included). */
async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}\n${dev.out}`);
}

const answer = async (target = endpoint) => {
  const response = await fetch(target);
  return { status: response.status, body: await response.json().catch(() => null) };
};
const admin = (route: string) =>
  fetch(`${url}${route}`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((response) => response.json());

beforeAll(async () => {
  write('integrations/greeter/platform-manifest.yaml', manifest('greeter'));
  write(
    'integrations/greeter/src/greet.ts',
    'export const greet = (greeting: string): string => `${greeting}, world`;\n',
  );
  write('integrations/greeter/src/index.ts', script('Hello'));
  dev = runCli(
    [
      'dev',
      '--port',
      '0',
      '--data',
      ':memory:',
      '--workers',
      '1',
      '--platform',
      path.join(REPO, 'fixtures/platform.yaml'),
    ],
    { cwd, env: { ...process.env, HOST_ADMIN_TOKEN: TOKEN } },
  );
  url = (await dev.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1];
  endpoint = (await dev.waitFor(/^greeter\s+ready\s+(http:\/\/\S+)/m))[1];
  await dev.waitFor(/watching integrations for changes/);
}, 90_000);

afterAll(async () => {
  const code = await dev?.stop();
  expect(code).toBe(0);
  // The session file of this dev host is gone with it.
  expect(existsSync(path.join(cwd, '.data', 'dev-session.json'))).toBe(false);
  rmSync(cwd, { recursive: true, force: true });
});

describe('npm run dev', () => {
  it('serves ./integrations by default, built in development mode', async () => {
    expect(await answer()).toEqual({ status: 200, body: { message: 'Hello, world' } });
    expect(await answer(`${endpoint}?mode`)).toEqual({ status: 200, body: { mode: 'development' } });
  });

  it('serves an edit of the script on the next request, without a restart, and says so in one line', async () => {
    write('integrations/greeter/src/index.ts', script('Bonjour'));
    expect(await eventually(answer, (value) => value.body?.message !== 'Hello, world')).toEqual({
      status: 200,
      body: { message: 'Bonjour, world' },
    });
    expect(dev.stdout).toMatch(
      /info {2}reloaded greeter in \d+ ms: the next request runs the new code \(bundle [0-9a-f]{8}\)\n/,
    );
  }, 60_000);

  it('reloads when an imported file changes, not only the entry', async () => {
    write(
      'integrations/greeter/src/greet.ts',
      'export const greet = (greeting: string): string => `${greeting}, dev loop`;\n',
    );
    expect(await eventually(answer, (value) => value.body?.message === 'Bonjour, dev loop')).toEqual({
      status: 200,
      body: { message: 'Bonjour, dev loop' },
    });
  }, 60_000);

  it('keeps the last good build serving when the build breaks, and the listing shows both', async () => {
    write('integrations/greeter/src/index.ts', `${script('Hola')}\nexport const broken = ;\n`);
    // The problem names the script at its place, with a code frame, as npm run check shows it.
    await dev.waitFor(
      new RegExp(
        /greeter did not reload \(1 problem\); the last good build keeps serving:\n/.source +
          /.*warn {4}integrations\/greeter\/src\/index\.ts:12:23: error: Unexpected ";"\n/.source +
          /.*warn {4}  12 \| export const broken = ;\n/.source +
          /.*warn {4}     \| {23}\^\n/.source,
      ),
    );
    expect(await answer()).toEqual({ status: 200, body: { message: 'Bonjour, dev loop' } });
    const listed = (await admin('/v1/integrations')).items.find((item: { name: string }) => item.name === 'greeter');
    expect(listed.status).toBe('ready');
    expect(listed.reloadErrors).toEqual(['integrations/greeter/src/index.ts:12:23: error: Unexpected ";"']);
    write('integrations/greeter/src/index.ts', script('Hola'));
    expect(await eventually(answer, (value) => value.body?.message === 'Hola, dev loop')).toEqual({
      status: 200,
      body: { message: 'Hola, dev loop' },
    });
    const fixed = (await admin('/v1/integrations')).items.find((item: { name: string }) => item.name === 'greeter');
    expect(fixed.reloadErrors).toBeUndefined();
  }, 60_000);

  it('keeps serving through a broken manifest and reloads a fixed one', async () => {
    write(
      'integrations/greeter/platform-manifest.yaml',
      manifest('greeter').replace('visibility: public', 'visibility: everyone'),
    );
    await dev.waitFor(
      new RegExp(
        /greeter did not reload \(1 problem\)[^\n]*\n/.source +
          /[^\n]*\/visibility: must be one of private, unlisted, public \(got "everyone"\)/.source,
      ),
    );
    expect((await answer()).body).toEqual({ message: 'Hola, dev loop' });
    write('integrations/greeter/platform-manifest.yaml', manifest('greeter', 'summary: Now with a summary.\n'));
    await dev.waitFor(/info {2}reloaded greeter in \d+ ms: changed manifest summary; same code\n/);
    const detail = await admin('/v1/integrations/greeter');
    expect(detail.summary).toBe('Now with a summary.');
    expect(detail.reloadErrors).toBeUndefined();
  }, 60_000);

  it('prints a manifest typo with the warnings and suggestions npm run check prints, and "no change" once it is ' +
    'undone', async () => {
    write(
      'integrations/greeter/platform-manifest.yaml',
      manifest('greeter', 'summary: Now with a summary.\n').replace('scopes: []', 'scope: []'),
    );
    await dev.waitFor(
      new RegExp(
        /greeter did not reload \(1 problem\)[^\n]*\n/.source +
          /[^\n]*\/scopes: required key "scopes" is missing \(is "scope" a misspelling of it\?\)\n/.source +
          /[^\n]*\/scope: unknown key "scope" \(ignored; did you mean "scopes"\?\) \(warning\)\n/.source,
      ),
    );
    // Put back as it was: nothing changed in effect, and the terminal says so.
    write('integrations/greeter/platform-manifest.yaml', manifest('greeter', 'summary: Now with a summary.\n'));
    await dev.waitFor(
      new RegExp(
        /info {2}greeter: no change \(its files match the build that was serving again; /.source +
          /the problems reported before are gone\)\n/.source,
      ),
    );
    expect((await admin('/v1/integrations/greeter')).reloadErrors).toBeUndefined();
  }, 60_000);

  it('serves a new integration folder as soon as it is written, with its own installation', async () => {
    write(
      'integrations/second/src/index.ts',
      "import { createIntegration } from 'sandbox-api';\nexport default createIntegration({ fetch: () => " +
        'Response.json({ second: true }) });\n',
    );
    write('integrations/second/platform-manifest.yaml', manifest('second'));
    const added = (await dev.waitFor(/added second: (http:\/\/\S+)/))[1];
    expect(
      await eventually(
        () => answer(added),
        (value) => value.status === 200,
      ),
    ).toEqual({ status: 200, body: { second: true } });
  }, 60_000);

  it('lets npm run logs find the dev host without flags', async () => {
    const session = JSON.parse(readFileSync(path.join(cwd, '.data', 'dev-session.json'), 'utf8'));
    expect(session).toEqual({ url, adminToken: TOKEN, pid: dev.child.pid });
    const logs = runCli(['logs', 'greeter'], { cwd, env: { ...process.env, HOST_ADMIN_TOKEN: '' } });
    try {
      await logs.waitFor(/following greeter on http/);
      await answer();
      await logs.waitFor(/ greeter inst_\w+ fetch 200 \d+ ms evt_\w+ req=\S+\n {2}log {3}greeting with Hola/);
    } finally {
      await logs.stop();
    }
  }, 60_000);
});
