// Opens a URL as a browser would (a configuration button's connect link, a component's
// `@ui.url.open` to the integration's endpoint): follows redirects, those to the host on the host and
// those to a third party on the loopback mock (which approves an OAuth request at once).

import type { Step } from './evidence.ts';
import { stepOf, type HostClient } from './host-client.ts';
import type { MockThirdParty } from './mock-third-party.ts';

const MAX_HOPS = 10;

/** Follows `url` to its end; pushes a Step for each failing host hop; answers the last status and request count. */
export async function browse(client: HostClient, mock: MockThirdParty, url: string, what: string, steps: Step[]): Promise<{ status: number; requests: number }> {
  const origin = new URL(client.url).origin;
  let next = url;
  let status = 0;
  let requests = 0;
  while (requests < MAX_HOPS) {
    const target = new URL(next);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') break;
    let location: string | null;
    requests++;
    if (target.origin === origin) {
      const answer = await client.open('GET', next);
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
export async function connectButton(client: HostClient, mock: MockThirdParty, installationId: string, property: string, buttonUrl: string, steps: Step[]): Promise<boolean> {
  const what = `connect ${property}`;
  const { status, requests } = await browse(client, mock, buttonUrl, what, steps);
  const view = await client.admin('GET', `/v1/installations/${installationId}`);
  const configuration = (view.json as { configuration?: Record<string, unknown> } | undefined)?.configuration ?? {};
  const stored = configuration[property] !== undefined && configuration[property] !== null;
  steps.push(stored ? { what, status } : { what, status, problem: `the connection was not stored (the flow ended with ${status} after ${requests} request(s))` });
  return stored;
}
