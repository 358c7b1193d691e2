// The pure rules that keep integrations apart in a browser on one origin: which cookies a request
// carries to an installation, how its Set-Cookie headers are renamed and scoped, and which
// headers it may not send at all.
import { describe, expect, it } from 'vitest';
import {
  cookiesForInstallation,
  isolateInBrowser,
  PUBLIC_ENDPOINT_CSP,
  rewriteSetCookie,
} from '../../../host/server/browser-isolation.ts';

const ENDPOINT = '/v1/integrations/a/installations/inst_a';

describe('cookies a request carries to an installation', () => {
  it("keeps only the installation's own, under the names it set, and nothing of its neighbours or the console", () => {
    const header =
      'ih-inst_a-session=mine; ih-inst_b-session=theirs; ih_console=admin; ih-inst_a-theme=dark; ih-inst_ab-x=near';
    expect(cookiesForInstallation(header, 'inst_a')).toBe('session=mine; theme=dark');
    expect(cookiesForInstallation(header, 'inst_c')).toBeNull();
  });
});

describe('Set-Cookie from an installation', () => {
  it('is renamed into its namespace, scoped under its endpoint, and made host-only', () => {
    expect(
      rewriteSetCookie('session=s1; Path=/; Domain=example.test; HttpOnly; SameSite=Lax', 'inst_a', ENDPOINT),
    ).toBe(`ih-inst_a-session=s1; Path=${ENDPOINT}; HttpOnly; SameSite=Lax`);
    expect(rewriteSetCookie('pref=1', 'inst_a', ENDPOINT)).toBe(`ih-inst_a-pref=1; Path=${ENDPOINT}`);
    expect(rewriteSetCookie('pref=1; Path=/oauth/', 'inst_a', ENDPOINT)).toBe(
      `ih-inst_a-pref=1; Path=${ENDPOINT}/oauth`,
    );
  });

  it('never lets a path climb out of the endpoint', () => {
    expect(rewriteSetCookie('x=1; Path=/../../../..', 'inst_a', ENDPOINT)).toBe(`ih-inst_a-x=1; Path=${ENDPOINT}`);
    expect(rewriteSetCookie('x=1; Path=/a/../../b', 'inst_a', ENDPOINT)).toBe(`ih-inst_a-x=1; Path=${ENDPOINT}/b`);
  });

  it('drops what is not a cookie', () => {
    expect(rewriteSetCookie('=nameless', 'inst_a', ENDPOINT)).toBeNull();
    expect(rewriteSetCookie('no-equals-sign', 'inst_a', ENDPOINT)).toBeNull();
    expect(rewriteSetCookie('bad name=1', 'inst_a', ENDPOINT)).toBeNull();
  });
});

describe("an installation's answer", () => {
  it("is sandboxed, and may not clear the origin's data or widen a service worker's scope", () => {
    const answer = isolateInBrowser(
      {
        status: 200,
        headers: [
          ['content-type', 'text/html'],
          ['clear-site-data', '"cookies", "storage"'],
          ['Service-Worker-Allowed', '/'],
          ['content-security-policy', "default-src 'self'"],
        ],
        body: new Uint8Array(0),
      },
      'inst_a',
      ENDPOINT,
    );
    expect(answer.headers).toEqual([
      ['content-type', 'text/html'],
      ['content-security-policy', "default-src 'self'"],
      ['content-security-policy', PUBLIC_ENDPOINT_CSP],
    ]);
    expect(PUBLIC_ENDPOINT_CSP).not.toContain('allow-same-origin');
  });
});
