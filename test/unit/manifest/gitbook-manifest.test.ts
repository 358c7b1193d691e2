// gitbook-manifest.yaml is accepted like platform-manifest.yaml: the keys GitBook's integrations
// use validate, keys the host does not act on are warnings that say so, and `npm run check`
// (check: true) judges the folder, not the shell or platform it runs in.

import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadIntegration, loadIntegrations } from '../../../host/manifest/load.ts';
import { checkSchema } from '../../../host/manifest/validate.ts';
import { TempDirs } from './temp-integration.ts';

const temp = new TempDirs();
const cacheDir = temp.make();
afterAll(() => temp.cleanup());

/** A manifest in GitBook's style, with the keys its published integrations use. */
const GITBOOK_MANIFEST = `name: VA-Example
title: Example
description: Uses GitBook's manifest keys.
summary: |
  # Overview
  Multi-line markdown.
icon: ./assets/icon.png
previewImages:
  - ./assets/preview.png
externalLinks:
  - label: Documentation
    url: https://example.com/docs
visibility: public
script: ./src/index.ts
scopes:
  - site:views:read
  - page:feedback:read
organization: gitbook
target: site
categories:
  - visitor-auth
  - analytics
blocks:
  - id: embed
    title: Embed
    urlUnfurl:
      - https://example.com/**
    markdown:
      codeblock: example
      body: content
contentSecurityPolicy:
  script-src: https://cdn.example.com 'unsafe-inline';
  connect-src: |
    https://api.example.com
    wss://live.example.com;
configurations:
  account:
    componentId: configure
  space:
    properties:
      channel:
        type: string
        title: Channel
        description: Where to post.
  site:
    properties:
      tracking_id:
        type: string
        title: Tracking ID
        description: Your tracking ID.
    required:
      - tracking_id
secrets:
  CLIENT_ID: \${{ env.VA_EXAMPLE_CLIENT_ID }}
  CLIENT_SECRET: \${{ "op://vault/item/client-secret" }}
envs:
  staging:
    organization: other-org
    secrets:
      CLIENT_ID: \${{ op://vault/staging/client-id }}
`;

function gitbookFolder(manifest = GITBOOK_MANIFEST): string {
  return temp.make({
    'gitbook-manifest.yaml': manifest,
    'src/index.ts': 'export default { async fetch() { return new Response("ok"); } };\n',
    'assets/icon.png': 'png',
    'assets/preview.png': 'png',
  });
}

describe('gitbook-manifest.yaml', () => {
  it('loads with every key GitBook integrations use, warning once per key the host does not act on', async () => {
    const dir = gitbookFolder();
    const loaded = await loadIntegration(dir, { env: { VA_EXAMPLE_CLIENT_ID: 'id-value' }, cacheDir });
    expect(loaded.errors).toEqual([]);
    expect(loaded.status).toBe('ready');
    expect(loaded.manifestKind).toBe('gitbook');
    expect(loaded.name).toBe('VA-Example');
    expect(loaded.manifestPath).toBe(path.join(dir, 'gitbook-manifest.yaml'));
    expect(loaded.manifest?.target).toBe('site');
    expect(loaded.manifest?.contentSecurityPolicy).toEqual({
      'script-src': "https://cdn.example.com 'unsafe-inline';",
      'connect-src': 'https://api.example.com\nwss://live.example.com;\n',
    });
    const warnings = loaded.warnings.map((w) => `${w.pointer}: ${w.message}`);
    expect(warnings).toEqual([
      expect.stringMatching(/^\/target: accepted but not acted on: this host does not restrict install targets/),
      expect.stringMatching(/^\/blocks\/0\/urlUnfurl: accepted but not acted on: link unfurling/),
      expect.stringMatching(/^\/blocks\/0\/markdown: accepted but not acted on: markdown code block conversion/),
      expect.stringMatching(
        /^\/configurations\/account\/componentId: accepted: this host has no configuration screen of its own/,
      ),
      expect.stringMatching(/^\/envs: ignored: this host has no per-environment manifests/),
      expect.stringMatching(
        new RegExp(
          String.raw`^/secrets/CLIENT_SECRET: secret "CLIENT_SECRET" is a 1Password reference \(op://…\), ` +
            'which this host does not resolve: it is left unset',
        ),
      ),
    ]);
    // The 1Password reference is never handed to the integration as if it were the secret.
    expect(loaded.secrets).toEqual({ CLIENT_ID: 'id-value' });
    expect(JSON.stringify(loaded.warnings)).not.toContain('vault/item');
  });

  it('is an error, naming both files, when a folder holds both manifests', async () => {
    const dir = gitbookFolder();
    temp.write(dir, 'platform-manifest.yaml', 'name: other\n');
    const [loaded] = await loadIntegrations([path.dirname(dir)], { env: {}, cacheDir }).then((all) =>
      all.filter((one) => one.dir === dir),
    );
    expect(loaded.status).toBe('invalid');
    expect(loaded.errors).toEqual([
      {
        file: expect.stringContaining(path.basename(dir)),
        pointer: '',
        message: 'the folder has both platform-manifest.yaml and gitbook-manifest.yaml; keep one of them',
      },
    ]);
  });

  it('treats names differing only in case as the same name (they share a secret namespace)', async () => {
    const root = temp.make();
    temp.write(
      root,
      'a/gitbook-manifest.yaml',
      'name: VA-Okta\ntitle: A\ndescription: a\norganization: acme\nvisibility: private\nscopes: []\n',
    );
    temp.write(
      root,
      'b/platform-manifest.yaml',
      'name: va-okta\ntitle: B\ndescription: b\norganization: acme\nvisibility: private\nscopes: []\n',
    );
    const loaded = await loadIntegrations([root], { env: {}, cacheDir });
    expect(loaded.map((one) => [one.status, one.errors[0]?.message])).toEqual([
      ['invalid', expect.stringMatching(/^name "VA-Okta" is also used by the integration in .*b$/)],
      ['invalid', expect.stringMatching(/^name "va-okta" is also used by the integration in .*a$/)],
    ]);
  });
});

describe('names of built-in integrations', () => {
  it(
    "loads an author's integration named like a built-in " + '(`webhook`, in any case), for check and host alike',
    async () => {
      const root = temp.make();
      temp.write(
        root,
        'hook/gitbook-manifest.yaml',
        'name: webhook\ntitle: A\ndescription: a\norganization: acme\nvisibility: private\nscopes: []\n',
      );
      temp.write(
        root,
        'other/platform-manifest.yaml',
        'name: Webhook-Relay\ntitle: B\ndescription: b\norganization: acme\nvisibility: private\nscopes: []\n',
      );
      const loaded = await loadIntegrations([root], { env: {}, cacheDir, check: true });
      expect(loaded.map((one) => [one.name, one.status, one.errors])).toEqual([
        ['webhook', 'ready', []],
        ['Webhook-Relay', 'ready', []],
      ]);
    },
  );

  it(
    "refuses a manifest that declares a built-in's own name (`host:…`): " + 'no manifest name holds a colon',
    async () => {
      const root = temp.make();
      temp.write(
        root,
        'hook/gitbook-manifest.yaml',
        'name: host:webhook\ntitle: A\ndescription: a\norganization: acme\nvisibility: private\nscopes: []\n',
      );
      const [loaded] = await loadIntegrations([root], { env: {}, cacheDir, check: true });
      expect(loaded.status).toBe('invalid');
      expect(loaded.errors.map((e) => `${e.pointer}: ${e.message}`)).toEqual([
        '/name: must be kebab-case: letters, digits and single dashes, e.g. "my-integration" (got "host:webhook")',
      ]);
    },
  );
});

describe('the schema of GitBook keys', () => {
  const base = { name: 'x', title: 'X', description: 'd', organization: 'o', visibility: 'public', scopes: [] };

  it.each([
    [{ target: 'everywhere' }, '/target', 'must be one of all, organization, space, site (got "everywhere")'],
    [{ configurations: { site: { componentId: '' } } }, '/configurations/site/componentId', 'must not be empty'],
    [
      { configurations: { site: { componentId: 'config', properties: {} } } },
      '/configurations/site/properties',
      'unknown key "properties"',
    ],
    [
      { configurations: { space: { required: [] } } },
      '/configurations/space/properties',
      'required key "properties" is missing',
    ],
    [
      { blocks: [{ id: 'b', title: 'B', markdown: { codeblock: 'x' } }] },
      '/blocks/0/markdown/body',
      'required key "body" is missing',
    ],
    [
      { blocks: [{ id: 'b', title: 'B', urlUnfurl: 'https://x/**' }] },
      '/blocks/0/urlUnfurl',
      'must be an array (got a string)',
    ],
    [
      { contentSecurityPolicy: { 'script-src': ['a'] } },
      '/contentSecurityPolicy/script-src',
      'must be a string (got an array)',
    ],
    [{ previewImages: ['a', 'b', 'c', 'd'] }, '/previewImages', 'must have at most 3 items (got 4)'],
    [{ envs: { prod: { title: 'no' } } }, '/envs/prod/title', 'unknown key "title"'],
    [
      { name: 'Bad_Name' },
      '/name',
      'must be kebab-case: letters, digits and single dashes, e.g. "my-integration" (got "Bad_Name")',
    ],
  ])('reports %j at its pointer', (extra, pointer, message) => {
    expect(checkSchema({ ...base, ...extra })).toEqual([{ pointer, message }]);
  });

  it('accepts a content security policy written as one string', () => {
    expect(checkSchema({ ...base, contentSecurityPolicy: "script-src 'self'" })).toEqual([]);
  });
});

describe('npm run check judges the folder, not the shell or the platform', () => {
  const manifest = (organization: string) => `name: check-me
title: Check me
description: d
organization: ${organization}
visibility: public
scopes:
  - site:script:inject
secrets:
  API_KEY: \${{ env.CHECK_ME_API_KEY }}
`;

  it(
    'warns about an unset secret variable that the host would refuse, and about an internal scope of an ' +
      'organization it does not know',
    async () => {
      const dir = temp.make({ 'platform-manifest.yaml': manifest('gitbook') });
      const checked = await loadIntegration(dir, {
        env: {},
        cacheDir,
        check: true,
        knownOrganizations: ['acme'],
        firstPartyOrganizations: [],
      });
      expect(checked.status).toBe('ready');
      expect(checked.warnings.map((w) => w.message)).toEqual([
        'scope "site:script:inject" is internal: granted only if the host where it runs names it the platform\'s ' +
          'own (--first-party or firstPartyIntegrations) or organization "gitbook" is first-party there (the ' +
          'platform ' +
          'data checked here does not know it)',
        'secret "API_KEY" needs environment variable CHECK_ME_API_KEY, which is not set: the host will refuse to ' +
          'load the integration until it is set (or stored with npm run secrets -- set check-me CHECK_ME_API_KEY)',
      ]);
      // Where the host loads it, both are errors.
      const hosted = await loadIntegration(dir, { env: {}, cacheDir, firstPartyOrganizations: [] });
      expect(hosted.status).toBe('invalid');
      expect(hosted.errors.map((e) => e.pointer)).toEqual(['/scopes/0', '/secrets/API_KEY']);
    },
  );

  it('still refuses an internal scope for an organization the platform data knows is not first-party', async () => {
    const dir = temp.make({ 'platform-manifest.yaml': manifest('acme') });
    const checked = await loadIntegration(dir, {
      env: { CHECK_ME_API_KEY: 'k' },
      cacheDir,
      check: true,
      knownOrganizations: ['acme'],
      firstPartyOrganizations: [],
    });
    expect(checked.status).toBe('invalid');
    expect(checked.errors.map((e) => e.message)).toEqual([
      'scope "site:script:inject" is internal and only granted to the platform\'s own integrations (--first-party ' +
        'or firstPartyIntegrations) and first-party organizations',
    ]);
  });

  it(
    "grants an internal scope to an integration the operator names the platform's own, whatever its " + 'organization',
    async () => {
      const dir = temp.make({ 'platform-manifest.yaml': manifest('acme') });
      const named = await loadIntegration(dir, {
        env: { CHECK_ME_API_KEY: 'k' },
        cacheDir,
        firstPartyOrganizations: [],
        firstPartyIntegrations: ['check-me'],
      });
      expect(named.errors).toEqual([]);
      expect(named.status).toBe('ready');
      const other = await loadIntegration(dir, {
        env: { CHECK_ME_API_KEY: 'k' },
        cacheDir,
        firstPartyOrganizations: [],
        firstPartyIntegrations: ['someone-else'],
      });
      expect(other.status).toBe('invalid');
    },
  );
});
