// The world of the GitBook-runtime OAuth sealing tests: a real host serving space-digest (GitBook's
// own createOAuthHandler), the hand-rolled and visitor-gate fixtures and the neighbour `hello`, the
// loopback OAuth provider they all use, and the steps a browser takes through a flow.

import { expect } from 'vitest';
import { startOAuthProvider, type OAuthProvider } from '../../fixtures/oauth-provider/provider.ts';
import type { BrowserClient } from './browser-client.ts';
import { installationOf, startTestHost, type TestHost } from './host.ts';
import type { HostOptionsInput } from '../../host/config/options.ts';

export const OAUTH_CLIENT = { clientId: 'sealed-client', clientSecret: 'sealed-secret-3e9b' };

export interface SealedOAuthWorld {
  host: TestHost;
  provider: OAuthProvider;
  /** The dev installations (organization, acme) of space-digest and hand-rolled. */
  digest: string;
  handRolled: string;
  close(): Promise<void>;
}

/**
 * `authorizeHostName` names the provider's authorization page for the browser: a name a test
 * browser resolves to loopback puts it on another site than the host's `127.0.0.1`, as a real
 * provider is. The token endpoint the integration calls stays on `127.0.0.1`.
 */
export async function startSealedOAuthWorld(
  options: HostOptionsInput = {},
  authorizeHostName = '127.0.0.1',
): Promise<SealedOAuthWorld> {
  const provider = await startOAuthProvider(OAUTH_CLIENT);
  const authorizeURL = new URL(provider.authorizeURL);
  authorizeURL.hostname = authorizeHostName;
  const env: Record<string, string | undefined> = { ...process.env };
  for (const prefix of ['SPACE_DIGEST', 'HAND_ROLLED']) {
    Object.assign(env, {
      [`${prefix}_CLIENT_ID`]: OAUTH_CLIENT.clientId,
      [`${prefix}_CLIENT_SECRET`]: OAUTH_CLIENT.clientSecret,
      [`${prefix}_AUTHORIZE_URL`]: authorizeURL.toString(),
      [`${prefix}_TOKEN_URL`]: provider.tokenURL,
    });
  }
  const host = await startTestHost({
    dirs: ['fixtures/gitbook/space-digest', 'test/fixtures/gitbook-oauth', 'fixtures/integrations/hello'],
    allowEgress: ['127.0.0.1'],
    env,
    ...options,
  });
  return {
    host,
    provider,
    digest: installationOf(host, 'space-digest'),
    handRolled: installationOf(host, 'hand-rolled'),
    async close() {
      await host.close();
      await provider.close();
    },
  };
}

/** The button URL of an installation's button property, as its admin view shows it now (a fresh ticket). */
export async function buttonOf(
  host: TestHost,
  installationId: string,
  property = 'oauth_credentials',
): Promise<string> {
  const view = await (await host.admin(`/v1/installations/${installationId}`)).json();
  return view.urls.buttons[property];
}

/** The connect ticket an admin view hands out for the installation now. */
export async function ticketOf(host: TestHost, installationId: string): Promise<string> {
  return new URL(await buttonOf(host, installationId)).searchParams.get('ticket')!;
}

/**
 * The browser opens `start`, is sent to the provider, which approves: where the provider sends it back (not yet
 * opened).
 */
export async function throughProvider(browser: BrowserClient, start: string): Promise<URL> {
  const started = await browser.fetch(start);
  expect(started.status, await started.clone().text()).toBe(302);
  const approved = await browser.fetch(started.headers.get('location')!);
  expect(approved.status).toBe(302);
  return new URL(approved.headers.get('location')!);
}

/** The configuration the host holds for an installation now. */
export async function configurationOf(host: TestHost, installationId: string): Promise<Record<string, unknown>> {
  return (await host.stores.installations.getInstallation(installationId))?.configuration ?? {};
}

/**
 * How many event-log entries of `integration` belong to the request `requestId` (the log waits
 * for rows still on their way): 0 proves the integration never ran for it.
 */
export async function entriesOfRequest(host: TestHost, integration: string, requestId: string | null): Promise<number> {
  expect(requestId).toBeTruthy();
  const { items } = await host.services.listEvents(integration, { limit: 200 });
  return items.filter((entry) => entry.requestId === requestId).length;
}

/**
 * What a refused callback or start must look like: the status, the host's error code and reason,
 * a warn line naming it, and not a single event of the integration for that request.
 */
export async function expectRefused(
  host: TestHost,
  integration: string,
  answer: Response,
  status: number,
  code: string,
  reason: RegExp,
): Promise<void> {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('location')).toBeNull();
  const body = await answer.json();
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(reason);
  expect(host.logs.some((line) => line.includes('oauth: refused') && reason.test(line))).toBe(true);
  expect(await entriesOfRequest(host, integration, answer.headers.get('x-request-id'))).toBe(0);
}
