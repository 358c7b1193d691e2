// A host API token must never reach an integration's public endpoint, in whatever form the API does
// not accept it: `Bearer <token> extra`, two credentials in one header or two Authorization
// headers, quoted, another scheme, Basic, junk glued on, another header, the URL (plain or
// percent-encoded). Each is refused with 400 before the integration runs; a third party's own
// credentials, and a value merely shaped like a token, still arrive.
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { installationToken, integrationToken } from '../helpers/platform-api.ts';

let host: TestHost;
let endpoint: string;
/** Another integration's installation token, and an integration token: what a caller could leak. */
let tokens: { installation: string; integration: string };

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  endpoint = endpointOf(host, 'host-token-capture');
  tokens = {
    installation: await installationToken(host, installationOf(host, 'hello')),
    integration: await integrationToken(host, 'hello'),
  };
}, 60_000);
afterAll(() => host?.close());

/** One request with raw header lines (repeats kept), answered status and body. */
function send(path: string, headers: [string, string][]): Promise<{ status: number; body: string }> {
  const url = new URL(path, endpoint);
  const grouped: Record<string, string[]> = {};
  for (const [name, value] of headers) (grouped[name] ??= []).push(value);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers: grouped }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const endpointPath = () => new URL(endpoint).pathname;
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

/** Requests carrying `token` where the API would not take it: [what, path, headers]. */
function attacks(token: string): [string, string, [string, string][]][] {
  const path = endpointPath();
  return [
    ['Bearer <token> extra', path, [['authorization', `Bearer ${token} extra`]]],
    ['Bearer <token>,Bearer x', path, [['authorization', `Bearer ${token},Bearer x`]]],
    ['Bearer "<token>"', path, [['authorization', `Bearer "${token}"`]]],
    ['Token <token>', path, [['authorization', `Token ${token}`]]],
    ['Basic with the token as password', path, [['authorization', basic(`user:${token}`)]]],
    ['Basic with the token as user name', path, [['authorization', basic(`${token}:`)]]],
    ['Bearer <token> with junk glued on both sides', path, [['authorization', `Bearer xx${token}yy`]]],
    [
      'a second Authorization header after a third party one',
      path,
      [
        ['authorization', 'Bearer third-party-credential'],
        ['authorization', `Bearer ${token}`],
      ],
    ],
    ['another header', path, [['x-api-key', token]]],
    ['the query', `${path}?access_token=${token}`, []],
    [
      'the query, percent-encoded twice',
      `${path}?t=${encodeURIComponent(encodeURIComponent(token).replace(/_/g, '%5F'))}`,
      [],
    ],
  ];
}

describe('host API tokens and public endpoints', () => {
  it('refuses every form an installation token comes in, naming where, without echoing it', async () => {
    for (const [what, path, headers] of attacks(tokens.installation)) {
      const answer = await send(path, headers);
      expect(answer.status, what).toBe(400);
      const { error } = JSON.parse(answer.body);
      expect(error.code, what).toBe('ERR_BAD_REQUEST');
      expect(error.message, what).toMatch(/carries a host API token in its (URL|"(authorization|x-api-key)" header)/);
      expect(answer.body, what).not.toContain(tokens.installation);
    }
  }, 60_000);

  it('refuses an integration token the same way', async () => {
    for (const [what, path, headers] of attacks(tokens.integration)) {
      const answer = await send(path, headers);
      expect(answer.status, what).toBe(400);
      expect(answer.body, what).not.toContain(tokens.integration);
    }
  }, 60_000);

  it('hands the integration a third party’s credentials and a value that only looks like a token', async () => {
    const jwtLike =
      `${randomBytes(40).toString('base64url')}.${randomBytes(600).toString('base64url')}.` +
      randomBytes(64).toString('base64url');
    const shaped = `iht_${randomBytes(32).toString('base64url')}`;
    for (const authorization of [
      'Bearer third-party-credential',
      `Bearer ${jwtLike}`,
      basic('client:secret'),
      `Token ${shaped}`,
    ]) {
      const answer = await send(endpointPath(), [['authorization', authorization]]);
      expect(answer.status, authorization).toBe(200);
      expect(JSON.parse(answer.body).headers, authorization).toContainEqual(['authorization', authorization]);
    }
  }, 60_000);

  it('never let a token reach the integration: its event log holds none', async () => {
    const { items } = await host.services.listEvents('host-token-capture', { limit: 100 });
    const text = JSON.stringify(items);
    expect(text).toContain('third-party-credential');
    expect(text).not.toContain(tokens.installation);
    expect(text).not.toContain(tokens.integration);
    expect(text).not.toContain(tokens.installation.slice(4));
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
