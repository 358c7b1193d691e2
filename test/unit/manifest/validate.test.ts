import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../../host/manifest/validate.ts';
import { checkSemantics, findUnknownKeys } from '../../../host/manifest/semantic.ts';

const valid = {
  name: 'my-integration',
  title: 'My integration',
  description: 'Does things.',
  organization: 'acme',
  visibility: 'public',
  scopes: ['space:content:read', 'site:views:read'],
  summary: '# Hello',
  script: 'src/index.ts',
  blocks: [{ id: 'counter', title: 'Counter', description: 'Counts.' }],
  categories: ['analytics', 'other'],
  icon: 'icon.png',
  previewImages: ['a.png'],
  externalLinks: [{ label: 'Docs', url: 'https://example.com/docs?x=1' }],
  configurations: {
    account: {
      properties: {
        channel: { type: 'string', title: 'Channel', description: 'Where.', enum: ['a', 'b'], default: 'a' },
        lookup: { type: 'string', title: 'Lookup', description: 'Remote.', completion_url: '/complete' },
        count: { type: 'number', title: 'Count', description: 'How many.', default: 3 },
        on: { type: 'boolean', title: 'On', description: 'Enabled.', default: false },
        connect: {
          type: 'button',
          title: 'Connect',
          description: 'OAuth.',
          button_text: 'Connect',
          callback_url: '/oauth',
        },
      },
      required: ['channel', 'count'],
    },
    site: { properties: {} },
  },
  secrets: { CLIENT_ID: '${{ env.X }}', _other2: 'y' },
};

const property = (extra: object) => ({
  ...valid,
  configurations: { account: { properties: { p: { title: 't', description: 'd', ...extra } } } },
});

describe('checkSchema', () => {
  it('accepts a manifest using every documented field', () => {
    expect(checkSchema(valid)).toEqual([]);
  });

  it('reports one message per problem, not a wall of alternatives', () => {
    expect(checkSchema(property({ type: 'number', enum: [1], default: 'x', button_text: 'b' }))).toEqual([
      { pointer: '/configurations/account/properties/p/default', message: 'default must be a number (got a string)' },
      { pointer: '/configurations/account/properties/p/enum', message: '"enum" is only allowed on string properties' },
      {
        pointer: '/configurations/account/properties/p/button_text',
        message: '"button_text" is only allowed on button properties',
      },
    ]);
  });

  it('requires button_text and callback_url on buttons, and refuses default there', () => {
    const pointers = checkSchema(property({ type: 'button', default: 'x' })).map((p) => p.pointer);
    expect(pointers.sort()).toEqual([
      '/configurations/account/properties/p/button_text',
      '/configurations/account/properties/p/callback_url',
      '/configurations/account/properties/p/default',
    ]);
  });

  it('names the allowed values and the value found', () => {
    expect(checkSchema({ ...valid, visibility: 'secret' })).toEqual([
      { pointer: '/visibility', message: 'must be one of private, unlisted, public (got "secret")' },
    ]);
  });

  it.each([['ftp://example.com'], ['https://'], ['mailto:a@b.c'], ['/relative']])('refuses the link url %s', (url) => {
    expect(checkSchema({ ...valid, externalLinks: [{ label: 'x', url }] })).toEqual([
      { pointer: '/externalLinks/0/url', message: `must be an absolute http(s) URL (got ${JSON.stringify(url)})` },
    ]);
  });

  it('refuses a protocol-relative callback path', () => {
    expect(
      checkSchema(property({ type: 'button', button_text: 'b', callback_url: '//evil.example/cb' }))[0].pointer,
    ).toBe('/configurations/account/properties/p/callback_url');
  });

  it('points a duplicate scope at the later item', () => {
    expect(checkSchema({ ...valid, scopes: ['openapi:read', 'openapi:write', 'openapi:read'] })).toEqual([
      { pointer: '/scopes/2', message: 'duplicate of item 0 (got "openapi:read")' },
    ]);
  });

  it('refuses unknown keys inside nested objects, with the key in the pointer', () => {
    const doc = {
      ...valid,
      blocks: [{ id: 'a', title: 't', description: 'd', iconn: 'x' }],
      configurations: { account: { properties: {}, extra: 1 }, global: {} },
    };
    expect(checkSchema(doc).map((p) => `${p.pointer} ${p.message}`)).toEqual([
      '/blocks/0/iconn unknown key "iconn": did you mean "icon"?',
      '/configurations/global unknown key "global"',
      '/configurations/account/extra unknown key "extra"',
    ]);
  });

  it('never echoes a value found under /secrets', () => {
    const problems = checkSchema({ ...valid, secrets: { 'not valid': 'hunter2', GOOD: 12345 } });
    expect(problems.map((p) => p.pointer)).toEqual(['/secrets/not valid', '/secrets/GOOD']);
    expect(JSON.stringify(problems)).not.toMatch(/hunter2|12345/);
  });

  it('escapes "/" and "~" in pointers', () => {
    expect(
      checkSchema({
        ...valid,
        configurations: { account: { properties: { 'a/b~c': { type: 'text', title: 't', description: 'd' } } } },
      })[0].pointer,
    ).toBe('/configurations/account/properties/a~1b~0c/type');
  });
});

describe('checkSemantics', () => {
  it('accepts the valid manifest', () => {
    expect(checkSemantics(valid)).toEqual([]);
  });

  it('reports every required name that is not a property, at its index', () => {
    const doc = {
      ...valid,
      configurations: {
        site: { properties: { a: { type: 'string', title: 't', description: 'd' } }, required: ['x', 'a', 'y'] },
      },
    };
    expect(checkSemantics(doc).map((p) => p.pointer)).toEqual([
      '/configurations/site/required/0',
      '/configurations/site/required/2',
    ]);
  });

  it('reports each internal scope unless the organization is first-party', () => {
    const doc = { ...valid, scopes: ['site:script:cookies', 'space:content:read', 'site:script:inject'] };
    expect(checkSemantics(doc).map((p) => p.pointer)).toEqual(['/scopes/0', '/scopes/2']);
    expect(checkSemantics(doc, { firstPartyOrganizations: ['acme'] })).toEqual([]);
    expect(checkSemantics(doc, { firstPartyIntegrations: [String(doc.name)] })).toEqual([]);
    expect(checkSemantics(doc, { firstPartyIntegrations: ['another'] }).map((p) => p.pointer)).toEqual([
      '/scopes/0',
      '/scopes/2',
    ]);
  });

  it('survives fields of the wrong type (the schema reports those)', () => {
    expect(
      checkSemantics({ blocks: 'x', configurations: { site: { properties: 3, required: 'a' } }, scopes: {} }),
    ).toEqual([]);
  });
});

describe('findUnknownKeys', () => {
  it('lists each unknown top-level key as a warning', () => {
    expect(findUnknownKeys({ ...valid, homepage: 'x', 'odd/key': 1 })).toEqual([
      { pointer: '/homepage', message: 'unknown key "homepage" (ignored)' },
      { pointer: '/odd~1key', message: 'unknown key "odd/key" (ignored)' },
    ]);
  });
});

describe('typo suggestions', () => {
  it('names the known key an unknown top-level key probably meant, and the key written for a missing one', () => {
    const { scopes, ...rest } = valid;
    const doc = { ...rest, scope: scopes };
    expect(findUnknownKeys(doc)).toEqual([
      { pointer: '/scope', message: 'unknown key "scope" (ignored; did you mean "scopes"?)' },
    ]);
    expect(checkSchema(doc)).toEqual([
      { pointer: '/scopes', message: 'required key "scopes" is missing (is "scope" a misspelling of it?)' },
    ]);
  });

  it('suggests nothing for a key far from every known one', () => {
    expect(findUnknownKeys({ ...valid, homepage: 'x' })[0].message).toBe('unknown key "homepage" (ignored)');
    expect(checkSchema({ ...valid, blocks: [{ id: 'a', title: 't', wholly: 1 }] })).toEqual([
      { pointer: '/blocks/0/wholly', message: 'unknown key "wholly"' },
    ]);
  });
});
