import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadIntegration, loadIntegrations } from '../../../host/manifest/load.ts';
import { formatProblem } from '../../../host/manifest/format.ts';
import { GOOD_SCRIPT, manifestYaml, TempDirs } from './temp-integration.ts';

const BAD = 'fixtures/integrations-bad';
const temp = new TempDirs();
const cacheDir = temp.make();
const options = { env: {}, cacheDir };
afterAll(() => temp.cleanup());

// [fixture folder, pointer, part of the message]: exactly one problem each.
const BAD_FIXTURES: [string, string, string][] = [
  [
    'yaml-syntax',
    '',
    'invalid YAML: the [ list that starts here is never closed (the parser read on to line 7: deficient ' +
      'indentation); end it with ]',
  ],
  ['not-a-mapping', '', 'must be a YAML mapping of keys to values (got a list)'],
  ['missing-required', '/title', 'required key "title" is missing'],
  ['bad-name', '/name', 'must be kebab-case: letters, digits and single dashes'],
  ['summary-too-long', '/summary', 'must be at most 2048 characters (got 2100)'],
  ['bad-visibility', '/visibility', 'must be one of private, unlisted, public (got "secret")'],
  ['unknown-scope', '/scopes/1', '(got "space:everything:write")'],
  ['bad-category', '/categories/0', '(got "gaming")'],
  ['block-missing-title', '/blocks/0/title', 'required key "title" is missing'],
  ['block-duplicate-id', '/blocks/1/id', 'duplicate block id "counter" (also used by /blocks/0)'],
  ['external-link-bad-url', '/externalLinks/0/url', 'must be an absolute http(s) URL (got "not a url")'],
  [
    'property-bad-type',
    '/configurations/account/properties/channel/type',
    'must be one of string, number, boolean, button (got "text")',
  ],
  ['enum-on-number', '/configurations/account/properties/count/enum', '"enum" is only allowed on string properties'],
  [
    'button-text-on-string',
    '/configurations/account/properties/channel/button_text',
    '"button_text" is only allowed on button properties',
  ],
  ['nested-unknown-key', '/configurations/account/properties/channel/placeholder', 'unknown key "placeholder"'],
  ['default-wrong-type', '/configurations/account/properties/count/default', 'must be a number (got a string)'],
  [
    'default-not-in-enum',
    '/configurations/account/properties/channel/default',
    'default "announcements" is not one of the enum values (general, random)',
  ],
  ['required-unknown-property', '/configurations/site/required/1', '"team" is not a property of configurations.site'],
  [
    'button-missing-callback',
    '/configurations/account/properties/connect/callback_url',
    'required key "callback_url" is missing',
  ],
  ['callback-url-not-path', '/configurations/account/properties/connect/callback_url', 'starting with "/"'],
  ['completion-url-not-path', '/configurations/account/properties/channel/completion_url', 'starting with "/"'],
  ['script-missing', '/script', '"index.ts" does not exist in the integration folder'],
  ['script-dotdot', '/script', '"../outside.ts" leaves the integration folder'],
  ['script-absolute', '/script', 'must be a path relative to the integration folder (got absolute "/etc/passwd")'],
  ['script-bad-extension', '/script', 'must be a .ts, .tsx, .js, .jsx or .mjs file'],
  ['script-symlink-escape', '/script', '"index.ts" resolves outside the integration folder'],
  ['icon-missing', '/icon', '"assets/icon.png" does not exist'],
  [
    'secret-env-missing',
    '/secrets/CLIENT_ID',
    'secret "CLIENT_ID" needs environment variable SECRET_ENV_MISSING_CLIENT_ID, which is not set (or store it: ' +
      'npm run secrets -- set secret-env-missing SECRET_ENV_MISSING_CLIENT_ID)',
  ],
  [
    'internal-scope',
    '/scopes/1',
    'scope "site:script:inject" is internal and only granted to the platform\'s own integrations (--first-party ' +
      'or firstPartyIntegrations) and first-party organizations',
  ],
  [
    'imports-node-fs',
    '/script',
    'script imports "node:fs" (from index.js): Node built-ins are not available in the sandbox',
  ],
  [
    'imports-outside',
    '/script',
    'script imports "../../outside-the-folder.ts" (from index.ts), which resolves outside the integration folder ' +
      'and its node_modules',
  ],
];

describe('loadIntegration with one defect per fixture', () => {
  it.each(BAD_FIXTURES)('rejects %s with one problem at its pointer', async (folder, pointer, message) => {
    const loaded = await loadIntegration(path.join(BAD, folder), options);
    expect(loaded.status).toBe('invalid');
    expect(loaded.bundle).toBeUndefined();
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0].pointer).toBe(pointer);
    expect(loaded.errors[0].message).toContain(message);
    expect(loaded.errors[0].file).toBe(`${BAD}/${folder}/platform-manifest.yaml`);
  });

  it('grants an internal scope to a first-party organization', async () => {
    const loaded = await loadIntegration(`${BAD}/internal-scope`, { ...options, firstPartyOrganizations: ['acme'] });
    expect(loaded.errors).toEqual([]);
    expect(loaded.status).toBe('ready');
  });
});

describe('loadIntegration', () => {
  it('reports every problem of a manifest at once', async () => {
    const dir = temp.make({
      'platform-manifest.yaml': manifestYaml('three-defects', 'visibility: secret\nicon: missing.png\n')
        .replace('visibility: private\n', '')
        .replace('title: Temp integration\n', ''),
    });
    const loaded = await loadIntegration(dir, options);
    expect(loaded.errors.map((p) => p.pointer)).toEqual(['/title', '/visibility', '/icon']);
  });

  it('warns about an unknown top-level key and still loads', async () => {
    const loaded = await loadIntegration(`${BAD}/unknown-key`, options);
    expect(loaded.status).toBe('ready');
    expect(loaded.errors).toEqual([]);
    expect(loaded.warnings).toEqual([
      {
        file: `${BAD}/unknown-key/platform-manifest.yaml`,
        pointer: '/homepage',
        message: 'unknown key "homepage" (ignored)',
      },
    ]);
    expect(loaded.manifest).not.toHaveProperty('homepage');
    expect(loaded.bundle?.code).toContain('return __ih_entry;');
  });

  it('resolves secrets from the environment and keeps the templates in the manifest', async () => {
    const dir = temp.make({
      'platform-manifest.yaml': manifestYaml(
        'with-secrets',
        'secrets:\n  CLIENT_ID: ${{env.WITH_SECRETS_ID}}\n  CLIENT_SECRET: "${{ env.WITH_SECRETS_SECRET }}"\n',
      ),
    });
    const loaded = await loadIntegration(dir, {
      ...options,
      env: { WITH_SECRETS_ID: 'id-123', WITH_SECRETS_SECRET: 's3cr3t-value' },
    });
    expect(loaded.status).toBe('ready');
    expect(loaded.secrets).toEqual({ CLIENT_ID: 'id-123', CLIENT_SECRET: 's3cr3t-value' });
    expect(loaded.manifest?.secrets).toEqual({
      CLIENT_ID: '${{env.WITH_SECRETS_ID}}',
      CLIENT_SECRET: '${{ env.WITH_SECRETS_SECRET }}',
    });
  });

  it('never puts a secret value into a problem, and hands out no secrets when invalid', async () => {
    const dir = temp.make({
      'platform-manifest.yaml': manifestYaml(
        'leaky',
        'secrets:\n  LITERAL: hunter2-literal\n  FROM_ENV: ${{ env.LEAKY_SET_ONE }}\n  MISSING: ${{ ' +
          'env.LEAKY_NOT_SET_ONE }}\n  bad-key: hunter3-literal\n',
      ),
    });
    const loaded = await loadIntegration(dir, { ...options, env: { LEAKY_SET_ONE: 'env-value-xyz' } });
    expect(loaded.status).toBe('invalid');
    expect(loaded.secrets).toEqual({});
    expect(loaded.errors.map((p) => p.pointer).sort()).toEqual(['/secrets/MISSING', '/secrets/bad-key']);
    expect(loaded.warnings.map((p) => p.pointer)).toEqual(['/secrets/LITERAL', '/secrets/bad-key']);
    const printed = [...loaded.errors, ...loaded.warnings].map(formatProblem).join('\n');
    for (const value of ['hunter2-literal', 'hunter3-literal', 'env-value-xyz']) expect(printed).not.toContain(value);
  });

  it('marks an integration without a script ready, with no bundle', async () => {
    const loaded = await loadIntegration(temp.make({ 'platform-manifest.yaml': manifestYaml('no-script') }), options);
    expect(loaded).toMatchObject({ name: 'no-script', status: 'ready', errors: [], warnings: [] });
    expect(loaded.bundle).toBeUndefined();
  });

  it('bundles the script of a valid integration', async () => {
    const dir = temp.make({
      'platform-manifest.yaml': manifestYaml('bundled', 'script: src/index.js\n'),
      'src/index.js': GOOD_SCRIPT,
    });
    const loaded = await loadIntegration(dir, options);
    expect(loaded.status).toBe('ready');
    expect(loaded.bundle?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports a missing manifest file instead of throwing', async () => {
    const loaded = await loadIntegration(temp.make(), options);
    expect(loaded.status).toBe('invalid');
    expect(loaded.errors[0]).toMatchObject({ pointer: '', message: 'cannot read platform-manifest.yaml (ENOENT)' });
  });
});

describe('loadIntegrations', () => {
  it("refuses a secret from another loaded integration's namespace, even one its own prefix covers", async () => {
    const root = temp.make({
      'oauth/platform-manifest.yaml': manifestYaml(
        'oauth',
        'secrets:\n  STOLEN: ${{ env.OAUTH_DEMO_CLIENT_SECRET }}\n  OWN: ${{ env.OAUTH_TOKEN }}\n',
      ),
      'oauth-demo/platform-manifest.yaml': manifestYaml(
        'oauth-demo',
        'secrets:\n  CLIENT_SECRET: ${{ env.OAUTH_DEMO_CLIENT_SECRET }}\n',
      ),
    });
    const loaded = await loadIntegrations([root], {
      ...options,
      env: { OAUTH_DEMO_CLIENT_SECRET: 'demo-secret', OAUTH_TOKEN: 'own-token' },
    });
    const byName = Object.fromEntries(loaded.map((integration) => [integration.name, integration]));
    expect(byName['oauth-demo']).toMatchObject({ status: 'ready', secrets: { CLIENT_SECRET: 'demo-secret' } });
    expect(byName.oauth.status).toBe('invalid');
    expect(byName.oauth.secrets).toEqual({});
    expect(byName.oauth.errors.map(formatProblem).join('\n')).toMatch(
      /secret "STOLEN" cannot read OAUTH_DEMO_CLIENT_SECRET: it belongs to the integration "oauth-demo"/,
    );
  });

  it("takes a stored secret over the environment, even one inside another loaded integration's namespace", async () => {
    const root = temp.make({
      'gitlab/platform-manifest.yaml': manifestYaml('gitlab', 'secrets:\n  CLIENT_ID: ${{ env.GITLAB_CLIENT_ID }}\n'),
      'gitlab-files/platform-manifest.yaml': manifestYaml(
        'gitlab-files',
        'secrets:\n  CLIENT_ID: ${{ env.GITLAB_CLIENT_ID }}\n',
      ),
    });
    const env = { GITLAB_CLIENT_ID: 'gitlab-own' };
    const without = await loadIntegrations([root], { ...options, env, storedSecrets: () => undefined });
    expect(
      without
        .find((integration) => integration.name === 'gitlab-files')
        ?.errors.map(formatProblem)
        .join('\n'),
    ).toMatch(
      new RegExp(
        'cannot read GITLAB_CLIENT_ID: .*store it for this integration instead: ' +
          'npm run secrets -- set gitlab-files GITLAB_CLIENT_ID',
      ),
    );
    const stored = new Map([['gitlab-files', new Map([['GITLAB_CLIENT_ID', { value: 'stored-for-files' }]])]]);
    const loaded = await loadIntegrations([root], { ...options, env, storedSecrets: (name) => stored.get(name) });
    const byName = Object.fromEntries(loaded.map((integration) => [integration.name, integration]));
    expect(byName['gitlab-files']).toMatchObject({
      status: 'ready',
      secrets: { CLIENT_ID: 'stored-for-files' },
      secretSources: { CLIENT_ID: { variable: 'GITLAB_CLIENT_ID', source: 'store' } },
    });
    expect(byName.gitlab).toMatchObject({
      status: 'ready',
      secrets: { CLIENT_ID: 'gitlab-own' },
      secretSources: { CLIENT_ID: { variable: 'GITLAB_CLIENT_ID', source: 'environment' } },
    });
  });

  it('ignores stored secrets for npm run check, which judges the folder', async () => {
    const root = temp.make({
      'copilot/platform-manifest.yaml': manifestYaml('copilot', 'secrets:\n  APP_ID: ${{ env.OTHER_APP_ID }}\n'),
    });
    const [loaded] = await loadIntegrations([root], {
      ...options,
      check: true,
      storedSecrets: () => new Map([['OTHER_APP_ID', { value: 'x' }]]),
    });
    expect(loaded.status).toBe('ready');
    expect(loaded.warnings.map(formatProblem).join('\n')).toMatch(
      new RegExp(
        'reads OTHER_APP_ID, which a host never takes from its environment .*: ' +
          'store it for this integration with npm run secrets -- set copilot OTHER_APP_ID',
      ),
    );
  });

  it('bundles and returns only the integrations asked for, judging names against all', async () => {
    const root = temp.make({
      'one/platform-manifest.yaml': manifestYaml('one'),
      'two/platform-manifest.yaml': manifestYaml('two'),
      'twin-a/platform-manifest.yaml': manifestYaml('twin'),
      'twin-b/platform-manifest.yaml': manifestYaml('twin'),
    });
    const loaded = await loadIntegrations([root], options, new Set(['two', 'twin']));
    expect(loaded.map((integration) => [integration.name, integration.status])).toEqual([
      ['twin', 'invalid'],
      ['twin', 'invalid'],
      ['two', 'ready'],
    ]);
  });

  it('makes both holders of a duplicate name invalid, each naming the other folder', async () => {
    const loaded = await loadIntegrations(['fixtures/integrations-bad-duplicates'], options);
    expect(loaded.map((i) => [i.name, i.status])).toEqual([
      ['twin', 'invalid'],
      ['twin', 'invalid'],
    ]);
    expect(loaded[0].errors).toEqual([
      {
        file: 'fixtures/integrations-bad-duplicates/a/platform-manifest.yaml',
        pointer: '/name',
        message: 'name "twin" is also used by the integration in fixtures/integrations-bad-duplicates/b',
      },
    ]);
    expect(loaded[1].errors[0].message).toContain('fixtures/integrations-bad-duplicates/a');
  });

  it('loads every subfolder with a manifest, only unknown-key being ready', async () => {
    const loaded = await loadIntegrations([BAD], options);
    expect(loaded.map((i) => path.basename(i.dir)).sort()).toEqual(
      [...BAD_FIXTURES.map(([f]) => f), 'unknown-key'].sort(),
    );
    expect(loaded.filter((i) => i.status === 'ready').map((i) => i.name)).toEqual(['unknown-key']);
  });

  it('throws ERR_OPTIONS_INVALID for a directory that does not exist', async () => {
    await expect(loadIntegrations(['fixtures/no-such-dir'], options)).rejects.toMatchObject({
      code: 'ERR_OPTIONS_INVALID',
    });
  });

  it('finds duplicates across several directories', async () => {
    const first = temp.make({ 'x/platform-manifest.yaml': manifestYaml('same') });
    const second = temp.make({
      'y/platform-manifest.yaml': manifestYaml('same'),
      'z/platform-manifest.yaml': manifestYaml('other'),
    });
    const loaded = await loadIntegrations([first, second], options);
    expect(loaded.map((i) => `${i.name}:${i.status}`)).toEqual(['same:invalid', 'same:invalid', 'other:ready']);
  });
});
