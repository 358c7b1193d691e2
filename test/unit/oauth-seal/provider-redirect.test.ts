// A redirect is sealed only when it sends the browser to a provider with a redirect_uri coming
// back to the answering endpoints of this host; its state is then replaced and nothing else.
import { describe, expect, it } from 'vitest';
import {
  findProviderRedirect,
  sealedLocation,
  type CallbackEndpoints,
} from '../../../host/oauth-seal/provider-redirect.ts';

const HOST = 'http://127.0.0.1:8787';
const ENDPOINTS: CallbackEndpoints = {
  origin: HOST,
  integrationPath: '/v1/integrations/jira/integration',
  installationPath: '/v1/integrations/jira/installations/inst_a',
};
const to = (redirectUri: string, extra = '') =>
  `https://auth.example/authorize?client_id=c&redirect_uri=${encodeURIComponent(redirectUri)}` +
  `&scope=read%20write${extra}`;
const answer = (location: string, status = 302): [number, [string, string][]] => [status, [['Location', location]]];

describe('finding the provider redirect of an answer', () => {
  it("finds redirects back to the integration's endpoint or the answering installation's", () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const found = findProviderRedirect(
        ...answer(to(`${HOST}/v1/integrations/jira/integration/oauth`, '&state=%7B%7D'), status),
        ENDPOINTS,
      );
      expect(found).toEqual({
        location: to(`${HOST}/v1/integrations/jira/integration/oauth`, '&state=%7B%7D'),
        callbackPath: '/v1/integrations/jira/integration/oauth',
        states: ['{}'],
      });
    }
    expect(
      findProviderRedirect(...answer(to(`${HOST}/v1/integrations/jira/installations/inst_a/oauth`)), ENDPOINTS),
    ).toMatchObject({ callbackPath: '/v1/integrations/jira/installations/inst_a/oauth', states: [] });
  });

  it('leaves every other answer alone', () => {
    const elsewhere = [
      `https://elsewhere.example/v1/integrations/jira/integration/oauth`,
      `http://127.0.0.1:9999/v1/integrations/jira/integration/oauth`,
      `http://localhost:8787/v1/integrations/jira/integration/oauth`,
      `${HOST}/v1/integrations/discord/integration/oauth`,
      `${HOST}/v1/integrations/jira/installations/inst_b/oauth`,
      `${HOST}/v1/integrations/jira/integrations`,
      'not a url',
    ];
    for (const uri of elsewhere) expect(findProviderRedirect(...answer(to(uri)), ENDPOINTS), uri).toBeUndefined();
    expect(
      findProviderRedirect(200, [['location', to(`${HOST}/v1/integrations/jira/integration/oauth`)]], ENDPOINTS),
    ).toBeUndefined();
    expect(
      findProviderRedirect(302, [['location', 'https://auth.example/authorize?client_id=c']], ENDPOINTS),
    ).toBeUndefined();
    expect(findProviderRedirect(302, [], ENDPOINTS)).toBeUndefined();
  });

  it('replaces the state and keeps the rest of the Location byte for byte', () => {
    const location = to(
      `${HOST}/v1/integrations/jira/integration/oauth`,
      '&state=%7B%22installationId%22%3A%22inst_a%22%7D&prompt=consent',
    );
    const found = findProviderRedirect(...answer(location), ENDPOINTS)!;
    expect(found.states).toEqual(['{"installationId":"inst_a"}']);
    expect(sealedLocation(found, 'nonce.sig')).toBe(
      location.replace('state=%7B%22installationId%22%3A%22inst_a%22%7D', 'state=nonce.sig'),
    );
    const stateless = findProviderRedirect(...answer(to(`${HOST}/v1/integrations/jira/integration/oauth`)), ENDPOINTS)!;
    expect(sealedLocation(stateless, 'nonce.sig')).toBe(
      `${to(`${HOST}/v1/integrations/jira/integration/oauth`)}&state=nonce.sig`,
    );
  });
});
