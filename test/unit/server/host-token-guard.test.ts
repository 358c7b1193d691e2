// Finding host API tokens in what a public endpoint would hand an integration, however a client
// wrapped them, and asking the store only about a bounded number of candidates.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_CANDIDATES, refuseHostTokens, tokenCandidates } from '../../../host/server/host-token-guard.ts';
import { HostError } from '../../../host/common/errors.ts';

const TOKEN = `iht_${randomBytes(32).toString('base64url')}`;
const INTEGRATION_TOKEN = `ihi_${Buffer.from('hello').toString('base64url')}.${randomBytes(32).toString('base64url')}`;

describe('tokenCandidates', () => {
  it.each([
    ['as sent', TOKEN],
    ['with text glued on both sides', `Bearer "xx${TOKEN}yy"`],
    ['base64-encoded in Basic', `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`],
    ['base64-encoded after other characters', `k=abc${Buffer.from(TOKEN).toString('base64')}`],
    ['percent-encoded', encodeURIComponent(TOKEN).replace(/_/g, '%5F').replace(/i/g, '%69')],
    ['percent-encoded twice', encodeURIComponent(TOKEN.replace(/_/g, '%5F'))],
  ])('finds an installation token %s', (_, text) => {
    expect([...tokenCandidates([text])]).toContain(TOKEN);
  });

  it('finds an integration token, and every one of overlapping starts', () => {
    expect([...tokenCandidates([`Token ${INTEGRATION_TOKEN}`])]).toContain(INTEGRATION_TOKEN);
    expect(tokenCandidates([`iht_${TOKEN}`]).size).toBe(2);
  });

  it('finds nothing in a third party’s credentials', () => {
    const jwt =
      `${randomBytes(40).toString('base64url')}.${randomBytes(900).toString('base64url')}.` +
      randomBytes(64).toString('base64url');
    expect(
      tokenCandidates([
        'Bearer third-party',
        `Bearer ${jwt}`,
        `Basic ${Buffer.from('client:secret').toString('base64')}`,
        'iht_short',
      ]).size,
    ).toBe(0);
  });
});

describe('refuseHostTokens', () => {
  it('refuses a request carrying a live token, naming the header, never the token', async () => {
    const error = await refuseHostTokens(
      { headers: [['x-api-key', TOKEN]], target: '/' },
      async (token) => token === TOKEN,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).code).toBe('ERR_BAD_REQUEST');
    expect((error as HostError).message).toContain('its "x-api-key" header');
    expect((error as HostError).message).not.toContain(TOKEN);
  });

  it('refuses a token used as a header name without showing the name', async () => {
    const error = await refuseHostTokens(
      { headers: [[TOKEN, TOKEN]], target: '/' },
      async (token) => token === TOKEN,
    ).catch((e: unknown) => e);
    expect((error as HostError).message).toContain('in a header (its name)');
    expect((error as HostError).message).not.toContain(TOKEN);
  });

  it('lets a token-shaped value that is no live token through', async () => {
    await expect(
      refuseHostTokens({ headers: [['authorization', `Token ${TOKEN}`]], target: `/?t=${TOKEN}` }, async () => false),
    ).resolves.toBeUndefined();
  });

  it('refuses more candidates than the bound without asking the store about any', async () => {
    const many = Array.from({ length: MAX_TOKEN_CANDIDATES + 1 }, () => `iht_${randomBytes(32).toString('base64url')}`);
    let lookups = 0;
    const error = await refuseHostTokens(
      { headers: [['x-many', many.join(' ')]], target: '/' },
      async () => (lookups++, false),
    ).catch((e: unknown) => e);
    expect((error as HostError).code).toBe('ERR_BAD_REQUEST');
    expect(lookups).toBe(0);
  });
});
