// A rendered component's `@ui.url.open` links into the rendered installations' endpoints get
// their connect ticket; everything else is copied untouched.
import { describe, expect, it } from 'vitest';
import { withConnectTickets } from '../../../host/oauth-seal/ticket-links.ts';

const ORG = 'http://127.0.0.1:8787/v1/integrations/github/installations/inst_org';
const SPACE = 'http://127.0.0.1:8787/v1/integrations/github/installations/inst_space';
const endpoints = [
  { publicEndpoint: SPACE, ticket: () => 'T-space' },
  { publicEndpoint: ORG, ticket: () => 'T-org' },
];

describe('connect tickets on rendered links', () => {
  it("are added to links into the rendered installations' endpoints", () => {
    const element = {
      type: 'button',
      onPress: { action: '@ui.url.open', url: `${SPACE}/oauth` },
      children: [
        { type: 'button', onPress: { action: '@ui.url.open', url: `${ORG}/oauth?x=1` } },
        { type: 'button', onPress: { action: '@ui.url.open', url: ORG } },
      ],
    };
    expect(withConnectTickets({ type: 'element', element }, endpoints)).toEqual({
      type: 'element',
      element: {
        type: 'button',
        onPress: { action: '@ui.url.open', url: `${SPACE}/oauth?ticket=T-space` },
        children: [
          { type: 'button', onPress: { action: '@ui.url.open', url: `${ORG}/oauth?x=1&ticket=T-org` } },
          { type: 'button', onPress: { action: '@ui.url.open', url: `${ORG}?ticket=T-org` } },
        ],
      },
    });
  });

  it('leave every other value alone, `__proto__` keys included', () => {
    const others = [
      { action: '@ui.url.open', url: 'https://github.com/apps/gitbook/installations/new?state=x' },
      { action: '@ui.url.open', url: `${ORG}x/oauth` },
      { action: '@ui.url.open', url: 'http://127.0.0.1:8787/v1/integrations/github/installations/inst_other/oauth' },
      { action: '@ui.url.open', url: 'not a url' },
      { action: 'connect', url: `${ORG}/oauth` },
      { action: '@ui.url.open', url: 7 },
    ];
    expect(withConnectTickets(others, endpoints)).toEqual(others);
    const parsed = JSON.parse('{"__proto__":{"polluted":1},"a":[null,1,"s"]}');
    const copy = withConnectTickets(parsed, endpoints) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":1},"a":[null,1,"s"]}');
  });
});
