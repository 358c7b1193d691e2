// Every integration's public endpoint is on the host's origin, so a browser would share cookies
// and scripting between them. Each answer is sandboxed (CSP `sandbox`, an opaque origin), cookies
// are renamed into the installation's namespace and scoped under its endpoint, origin-wide headers
// are dropped, and a request carries to an installation only the cookies set through it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ENDPOINT_CSP } from '../../host/server/browser-isolation.ts';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile', 'test/fixtures/neighbours'] });
});
afterAll(() => host?.close());

/** The `name=value` of each Set-Cookie, as a browser would send it back. */
const jar = (response: Response): string[] => response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]);

describe('integrations sharing one browser origin', () => {
  it("confines the attacker's cookies to its own endpoint and drops origin-wide headers", async () => {
    const planted = await fetch(`${endpointOf(host, 'shared-origin')}?mode=plant`);
    const path = new URL(endpointOf(host, 'shared-origin')).pathname;
    const id = path.split('/').at(-1)!;
    expect(planted.headers.getSetCookie()).toEqual([
      `ih-${id}-session=planted-by-attacker; Path=${path}; SameSite=Lax`,
      `ih-${id}-wide=1; Path=${path}`,
    ]);
    expect(planted.headers.get('service-worker-allowed')).toBeNull();
    expect(planted.headers.get('clear-site-data')).toBeNull();
    expect(planted.headers.get('content-security-policy')).toBe(PUBLIC_ENDPOINT_CSP);
  });

  it(
    "never delivers a neighbour's session cookie to the attacker, even if a browser sent every cookie of the " +
      'origin',
    async () => {
      const login = await fetch(`${endpointOf(host, 'cookie-victim')}?mode=login`);
      const planted = await fetch(`${endpointOf(host, 'shared-origin')}?mode=plant`);
      const everything = [...jar(login), ...jar(planted), 'ih_console=admin-session'].join('; ');
      const attackerSees = await (
        await fetch(`${endpointOf(host, 'shared-origin')}?mode=echo`, { headers: { cookie: everything } })
      ).json();
      expect(attackerSees.cookie).toBe('session=planted-by-attacker; wide=1');
      const victimSees = await (
        await fetch(endpointOf(host, 'cookie-victim'), { headers: { cookie: everything } })
      ).json();
      expect(victimSees.cookie).toBe('session=victim-secret');
    },
  );

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
