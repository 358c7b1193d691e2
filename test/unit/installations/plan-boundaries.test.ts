// Who may create which installation (planInstallation): an unlisted integration's install link is
// accepted only whole and exact, and no installation reaches into another organization's spaces,
// whether as its target or through an organization installation's space_selection.
import { describe, it, expect } from 'vitest';
import { planInstallation } from '../../../host/installations/plan.ts';
import { deriveInstallLink } from '../../../host/installations/tokens.ts';
import type { LoadedIntegration } from '../../../host/manifest/types.ts';
import type { CreateInstallationInput } from '../../../host/installations/model.ts';
import type { PlatformData } from '../../../host/platform-data/data.ts';

const organization = (id: string) => ({ id, subdomain: id, title: id, members: [] });
const space = (id: string, owner: string) => ({
  id,
  organization: owner,
  title: id,
  visibility: 'private',
  description: '',
  metadata: {},
  pages: [],
});

const platform: PlatformData = {
  firstPartyOrganizations: [],
  firstPartyIntegrations: [],
  organizations: [organization('acme'), organization('globex')],
  spaces: [space('space_acme', 'acme'), space('space_acme_2', 'acme'), space('space_globex', 'globex')],
  sites: [],
};

function integration(visibility: 'public' | 'unlisted' | 'private'): LoadedIntegration {
  return {
    name: 'widget',
    dir: '/x',
    manifestPath: '/x/platform-manifest.yaml',
    status: 'ready',
    manifest: { name: 'widget', title: 'Widget', description: '', organization: 'acme', visibility, scopes: [] },
    secrets: {},
    errors: [],
    warnings: [],
  };
}

const LINK = deriveInstallLink('host-secret', 'widget');
const plan = (visibility: 'public' | 'unlisted' | 'private', input: CreateInstallationInput) => () =>
  planInstallation(platform, integration(visibility), input, LINK);
const refusedWith = (code: string) => expect.objectContaining({ code });

describe('an unlisted integration installed by another organization', () => {
  const byGlobex = (installLink?: string) =>
    plan('unlisted', {
      organization: 'globex',
      target: 'organization',
      ...(installLink === undefined ? {} : { installLink }),
    });

  it('is accepted with the whole install link', () => {
    expect(byGlobex(LINK)().installation).toMatchObject({ organization: 'globex', integration: 'widget' });
  });

  it.each([
    ['a truncated link', LINK.slice(0, -1)],
    ['the first half of the link', LINK.slice(0, LINK.length / 2)],
    ['a one-character link', LINK[0]],
    ['the link with a character more', `${LINK}A`],
    ['the link with its last character changed', `${LINK.slice(0, -1)}${LINK.endsWith('A') ? 'B' : 'A'}`],
    ['the link of another host secret', deriveInstallLink('other-secret', 'widget')],
    ['the link of another integration', deriveInstallLink('host-secret', 'widget2')],
    ['no link', undefined],
  ])('is refused with %s (403 ERR_VISIBILITY_DENIED)', (_what, installLink) => {
    expect(byGlobex(installLink)).toThrow(refusedWith('ERR_VISIBILITY_DENIED'));
  });
});

describe('a space installation', () => {
  it('is accepted on a space of its own organization', () => {
    expect(plan('public', { organization: 'acme', target: 'space', space: 'space_acme' })().installation).toMatchObject(
      { organization: 'acme', space: 'space_acme' },
    );
  });

  it.each(['public', 'unlisted', 'private'] as const)(
    "of a %s integration is refused on another organization's space",
    (visibility) => {
      const input = {
        organization: 'acme',
        target: 'space',
        space: 'space_globex',
        ...(visibility === 'unlisted' ? { installLink: LINK } : {}),
      } as const;
      expect(plan(visibility, input)).toThrow(refusedWith('ERR_NOT_FOUND'));
      expect(plan(visibility, input)).toThrow(/space "space_globex" not found in organization "acme"/);
    },
  );

  it('is refused the other way round (globex on a space of acme)', () => {
    expect(plan('public', { organization: 'globex', target: 'space', space: 'space_acme' })).toThrow(
      refusedWith('ERR_NOT_FOUND'),
    );
  });
});

describe("an organization installation's space_selection", () => {
  it('is accepted when it names spaces of its own organization', () => {
    const planned = plan('public', {
      organization: 'acme',
      target: 'organization',
      space_selection: ['space_acme', 'space_acme_2'],
    })();
    expect(planned.installation.spaceSelection).toEqual(['space_acme', 'space_acme_2']);
  });

  it.each([
    ["only another organization's space", ['space_globex']],
    ["another organization's space after its own", ['space_acme', 'space_globex']],
    ["another organization's space before its own", ['space_globex', 'space_acme']],
  ])('is refused when it names %s', (_what, selection) => {
    expect(plan('public', { organization: 'acme', target: 'organization', space_selection: selection })).toThrow(
      refusedWith('ERR_NOT_FOUND'),
    );
    expect(plan('public', { organization: 'acme', target: 'organization', space_selection: selection })).toThrow(
      /space "space_globex" in space_selection not found in organization "acme"/,
    );
  });
});
