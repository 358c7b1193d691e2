// Internal scopes go to the integrations and organizations the operator names the platform's own,
// matched by the exact name: a name that is a prefix of a first-party one, extends it, or differs
// in case or spacing gets no internal scope (an error, or a warning for an organization unknown to
// `npm run check`).
import { describe, expect, it } from 'vitest';
import { checkSemantics, semanticWarnings } from '../../../host/manifest/semantic.ts';

const manifest = (name: string, organization: string) => ({
  name,
  organization,
  scopes: ['space:content:read', 'site:script:inject', 'site:script:cookies'],
});
const refusedPointers = ['/scopes/1', '/scopes/2'];
const LOOKALIKES = (name: string) => [
  name.slice(0, -1),
  `${name}s`,
  `${name}-evil`,
  `x${name}`,
  name.toUpperCase(),
  ` ${name}`,
  `${name} `,
];

describe('first-party integrations', () => {
  const options = { firstPartyIntegrations: ['site-tools', 'analytics'] };

  it('get internal scopes by their exact name', () => {
    expect(checkSemantics(manifest('site-tools', 'globex'), options)).toEqual([]);
    expect(checkSemantics(manifest('analytics', 'globex'), options)).toEqual([]);
  });

  it.each(LOOKALIKES('site-tools'))('refuse them to an integration named "%s"', (name) => {
    expect(checkSemantics(manifest(name, 'globex'), options).map((issue) => issue.pointer)).toEqual(refusedPointers);
  });

  it('refuse them to a name that is a prefix of two first-party names joined', () => {
    expect(checkSemantics(manifest('site-toolsanalytics', 'globex'), options).map((issue) => issue.pointer)).toEqual(
      refusedPointers,
    );
  });
});

describe('first-party organizations', () => {
  const options = { firstPartyOrganizations: ['gitbook'] };

  it('give internal scopes to integrations they publish, by the exact organization', () => {
    expect(checkSemantics(manifest('anything', 'gitbook'), options)).toEqual([]);
  });

  it.each(LOOKALIKES('gitbook'))('refuse them to organization "%s"', (organization) => {
    expect(checkSemantics(manifest('anything', organization), options).map((issue) => issue.pointer)).toEqual(
      refusedPointers,
    );
  });

  it.each(LOOKALIKES('gitbook'))(
    'make organization "%s", unknown to the check, a warning, not a grant',
    (organization) => {
      const checked = { ...options, knownOrganizations: ['gitbook', 'acme'] };
      expect(checkSemantics(manifest('anything', organization), checked)).toEqual([]);
      expect(semanticWarnings(manifest('anything', organization), checked).map((issue) => issue.pointer)).toEqual(
        refusedPointers,
      );
    },
  );

  it('refuse them to a known organization whose id extends a first-party one', () => {
    const checked = { ...options, knownOrganizations: ['gitbook', 'gitbooks'] };
    expect(checkSemantics(manifest('anything', 'gitbooks'), checked).map((issue) => issue.pointer)).toEqual(
      refusedPointers,
    );
  });
});
