// Opens a URL as a browser would (a configuration button's connect link, a component's
// `@ui.url.open` to the integration's endpoint): follows redirects, those to the host on the host
// (with the cookies it set, as one browser) and those to a third party on the loopback mock.

import type { Step } from './evidence.ts';
import { stepOf, type HostClient } from './host-client.ts';
import type { MockThirdParty } from './mock-third-party.ts';

const MAX_HOPS = 10;

/** The host's cookies of one browsing session: name → value and path (expired ones dropped). */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  store(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const equals = pair.indexOf('=');
      if (equals <= 0) continue;
      const name = pair.slice(0, equals);
      const path = attributes.find((attribute) => /^path=/i.test(attribute))?.slice(5) || '/';
      const expired = attributes.some((attribute) => /^max-age=(0|-\d+)$/i.test(attribute));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, { value: pair.slice(equals + 1), path });
    }
  }

  /** The Cookie header for a request to `pathname`, or undefined when none applies. */
  header(pathname: string): string | undefined {
    const sent = [...this.cookies].filter(
      ([, cookie]) =>
        pathname === cookie.path || pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`),
    );
    return sent.length === 0 ? undefined : sent.map(([name, cookie]) => `${name}=${cookie.value}`).join('; ');
  }
}

/** Follows `url` to its end; pushes a Step for each failing host hop; answers the last status and request count. */
export async function browse(
  client: HostClient,
  mock: MockThirdParty,
  url: string,
  what: string,
  steps: Step[],
): Promise<{ status: number; requests: number }> {
  const origin = new URL(client.url).origin;
  const jar = new CookieJar();
  let next = url;
  let status = 0;
  let requests = 0;
  while (requests < MAX_HOPS) {
    const target = new URL(next);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') break;
    let location: string | null;
    requests++;
    if (target.origin === origin) {
      const cookie = jar.header(target.pathname);
      const answer = await client.open('GET', next, cookie ? { headers: { cookie } } : {});
      jar.store(answer.headers.getSetCookie());
      status = answer.status;
      const step = stepOf(`${what}: ${answer.status} from ${target.pathname}`, answer);
      if (step.code !== undefined || answer.status >= 500) steps.push(step);
      location = answer.headers.get('location');
    } else {
      const answer = await mock.visit(next);
      status = answer.status;
      location = answer.location;
    }
    if (status < 300 || status >= 400 || location === null) break;
    next = new URL(location, next).toString();
  }
  return { status, requests };
}

/** Presses a configuration button: browses its URL, then checks the installation stored the connection. */
export async function connectButton(
  client: HostClient,
  mock: MockThirdParty,
  installationId: string,
  property: string,
  buttonUrl: string,
  steps: Step[],
): Promise<boolean> {
  const what = `connect ${property}`;
  const { status, requests } = await browse(client, mock, buttonUrl, what, steps);
  const view = await client.admin('GET', `/v1/installations/${installationId}`);
  const configuration = (view.json as { configuration?: Record<string, unknown> } | undefined)?.configuration ?? {};
  const stored = configuration[property] !== undefined && configuration[property] !== null;
  steps.push(
    stored
      ? { what, status }
      : {
          what,
          status,
          problem: `the connection was not stored (the flow ended with ${status} after ${requests} request(s))`,
        },
  );
  return stored;
}
