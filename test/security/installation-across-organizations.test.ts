// Installing across organizations through the admin API: another organization installs an unlisted
// integration (test/fixtures/lifecycle/unlisted-widget) only with its whole install link, never a
// truncated or one-character one; no installation takes another organization's space as its target
// or in its space_selection. Each refusal stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/lifecycle.ts';

let host: TestHost;
let link: string;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'test/fixtures/lifecycle'], autoInstall: false });
  link = (await (await host.admin('/v1/integrations/unlisted-widget')).json()).installLink;
  expect(link).toMatch(/^[\w-]{32}$/);
});
afterAll(() => host?.close());

async function installationsOf(integration: string): Promise<unknown[]> {
  const response = await host.admin(`/v1/installations?integration=${integration}`);
  expect(response.status).toBe(200);
  const body = await response.json();
  return (Array.isArray(body) ? body : (body.items ?? body.installations)).filter(
    (item: { integration: string }) => item.integration === integration,
  );
}

describe('an unlisted integration installed by another organization', () => {
  it.each([
    ['a truncated link', () => link.slice(0, -1)],
    ['a one-character link', () => link[0]],
    ['the link with a character more', () => `${link}x`],
    ['the link in another case', () => (link.toUpperCase() === link ? link.toLowerCase() : link.toUpperCase())],
  ])('is refused with %s (403 ERR_VISIBILITY_DENIED), nothing stored', async (_what, linkOf) => {
    const refused = await install(host, 'unlisted-widget', {
      organization: 'globex',
      target: 'organization',
      installLink: linkOf(),
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('ERR_VISIBILITY_DENIED');
    expect(await installationsOf('unlisted-widget')).toEqual([]);
  });

  it('is accepted with the whole link', async () => {
    expect(
      (await install(host, 'unlisted-widget', { organization: 'globex', target: 'organization', installLink: link }))
        .status,
    ).toBe(201);
    expect(await installationsOf('unlisted-widget')).toEqual([expect.objectContaining({ organization: 'globex' })]);
  });
});

describe("another organization's spaces", () => {
  it('are refused as the target of a space installation (404), nothing stored', async () => {
    const refused = await install(host, 'hello', { organization: 'acme', target: 'space', space: 'space_globex_docs' });
    expect(refused.status).toBe(404);
    expect(refused.json.error.message).toContain('space "space_globex_docs" not found in organization "acme"');
    expect(await installationsOf('hello')).toEqual([]);
  });

  it.each([
    ['alone', ['space_globex_docs']],
    ['beside its own', ['space_acme_docs', 'space_globex_docs']],
  ])(
    "are refused in an organization installation's space_selection, %s (404), nothing stored",
    async (_what, selection) => {
      const refused = await install(host, 'hello', {
        organization: 'acme',
        target: 'organization',
        space_selection: selection,
      });
      expect(refused.status).toBe(404);
      expect(refused.json.error.message).toContain(
        'space "space_globex_docs" in space_selection not found in organization "acme"',
      );
      expect(await installationsOf('hello')).toEqual([]);
    },
  );
});
