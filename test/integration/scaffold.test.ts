// `npm run new` for every template: the folder it writes passes `npm run check` (types included),
// is served by the host at once, and its own test passes under node's test runner. Bad input is
// one line naming what to fix, and nothing is overwritten.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.ts';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';
import { TEMPLATES } from '../../host/cli/scaffold.ts';

const REPO = path.resolve(import.meta.dirname, '../..');

const temp = new TempDirs();
const cwd = temp.make();
const NAMES = Object.fromEntries(TEMPLATES.map((template) => [template, `made-${template}`]));

function run(
  command: string[],
  options: { cwd?: string; node?: string[] } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...(options.node ?? CLI), ...command], { cwd: options.cwd ?? cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const made: Record<string, { status: number | null; stdout: string }> = {};

beforeAll(async () => {
  for (const template of TEMPLATES) made[template] = await run(['new', NAMES[template], '--template', template]);
}, 60_000);
afterAll(() => temp.cleanup());

describe('npm run new', () => {
  it.each(TEMPLATES)('writes the %s template into integrations/<name> and says what to run next', (template) => {
    expect(made[template].status).toBe(0);
    expect(made[template].stdout).toMatch(
      new RegExp(`^created integrations/${NAMES[template]} from the ${template} template:\\n  `),
    );
    expect(made[template].stdout).toMatch(/next:\n {2}npm run dev +serves it, and reloads it on every save\n/);
    const folder = path.join(cwd, 'integrations', NAMES[template]);
    const manifest = readFileSync(path.join(folder, 'platform-manifest.yaml'), 'utf8');
    expect(manifest).toMatch(new RegExp(`^name: ${NAMES[template]}$`, 'm'));
    expect(manifest).not.toMatch(/\{\{(name|title|organization|ENV_PREFIX|harness)\}\}/);
    expect(existsSync(path.join(folder, 'test/index.test.mts'))).toBe(true);
    expect(readFileSync(path.join(folder, '.gitignore'), 'utf8')).toMatch(/^\.dev\.vars$/m);
    expect(JSON.parse(readFileSync(path.join(folder, 'tsconfig.json'), 'utf8'))).toEqual({
      extends: path.relative(folder, path.join(REPO, 'tsconfig.integration.json')),
      include: ['src', 'test', '*.d.ts'],
    });
  });

  it('makes folders that npm run check passes, types included', async () => {
    const check = await run(['check']);
    expect(check.stdout).toMatch(
      new RegExp(
        `${TEMPLATES.length} integration\\(s\\) checked in integrations: ${TEMPLATES.length} ready, 0 invalid, 0 ` +
          `error\\(s\\), 0 type error\\(s\\)\\n$`,
      ),
    );
    expect(check.stdout).toMatch(
      new RegExp(
        /dev values for made-oauth's MADE_OAUTH_CLIENT_ID, MADE_OAUTH_CLIENT_SECRET, /.source +
          /MADE_OAUTH_AUTHORIZE_URL, MADE_OAUTH_TOKEN_URL from integrations\/made-oauth\/\.dev\.vars/.source,
      ),
    );
    expect(check.status).toBe(0);
  }, 60_000);

  it('makes folders the host serves at once', async () => {
    let host: TestHost | undefined;
    try {
      host = await startTestHost({ dirs: [path.join(cwd, 'integrations')], devVars: true, env: {} });
      for (const template of TEMPLATES) {
        const integration = host.integrations.find((candidate) => candidate.name === NAMES[template])!;
        expect(integration.status, integration.errors.map((problem) => problem.message).join('; ')).toBe('ready');
        expect(
          host.devInstallations.find((entry) => entry.integration === NAMES[template])?.installation,
        ).toBeDefined();
      }
      const blank = host.devInstallations.find((entry) => entry.integration === NAMES.blank)!.installation!;
      expect(await (await fetch(`${blank.urls.publicEndpoint}?name=scaffold`)).json()).toEqual({
        message: 'Hello, scaffold!',
      });
    } finally {
      await host?.close();
    }
  }, 60_000);

  it('makes tests that pass under the test command', async () => {
    const result = await run(['test']);
    expect(result.stdout, result.stdout + result.stderr).toMatch(/ℹ fail 0/);
    expect(result.stdout).toMatch(/ℹ pass ([89]|\d\d)/);
    expect(result.status).toBe(0);
  }, 120_000);

  it('refuses a bad name, an unknown template, a missing name and an existing folder, each in one line', async () => {
    const badName = await run(['new', 'My Greeter']);
    expect(badName.status).toBe(2);
    expect(badName.stderr).toMatch(
      new RegExp(
        /^error: name "My Greeter" must be lower-kebab-case /.source +
          /\(a-z, 0-9 and single dashes, at most 64 characters\), e\.g\. my-greeter\n/.source,
      ),
    );
    const badTemplate = await run(['new', 'x', '--template', 'fancy']);
    expect(badTemplate.stderr).toMatch(
      new RegExp(
        /^error: option '--template <template>' argument 'fancy' is invalid\. /.source +
          /Allowed choices are blank, block, oauth, webhook-consumer\.\n/.source,
      ),
    );
    const missing = await run(['new']);
    expect(missing.stderr).toMatch(/^error: missing required argument 'name'\n/);
    const before = readFileSync(path.join(cwd, 'integrations/made-blank/src/index.ts'), 'utf8');
    const existing = await run(['new', 'made-blank']);
    expect(existing.status).toBe(1);
    expect(existing.stderr).toBe(
      'error: integrations/made-blank already exists: choose another name, or remove that folder first\n',
    );
    expect(readFileSync(path.join(cwd, 'integrations/made-blank/src/index.ts'), 'utf8')).toBe(before);
  }, 60_000);
});
