// Platform API helpers for tests: an installation's token (derived exactly as the host derives
// it), HTTP calls with it, and admin installs. Reads only the host's token secret, nothing else.

import type { Host } from '../../host/index.ts';
import {
  deriveInstallationToken,
  deriveIntegrationToken,
  TOKEN_SECRET_META_KEY,
} from '../../host/installations/tokens.ts';
import type { CreateInstallationInput, InstallationView } from '../../host/installations/model.ts';
import type { TestHost } from './host.ts';

export interface ApiAnswer {
  status: number;
  body: any;
}

/** The `apiTokens.installation` the host puts in this installation's envelopes. */
export async function installationToken(host: Host, installationId: string): Promise<string> {
  const secret = await host.stores.meta.get(TOKEN_SECRET_META_KEY);
  if (secret === undefined) throw new Error('the host has no token secret yet');
  return deriveInstallationToken(secret, installationId);
}

/** The `apiTokens.integration` the host puts in this integration's envelopes. */
export async function integrationToken(host: Host, integration: string): Promise<string> {
  const secret = await host.stores.meta.get(TOKEN_SECRET_META_KEY);
  if (secret === undefined) throw new Error('the host has no token secret yet');
  return deriveIntegrationToken(secret, integration);
}

/** One platform API call over HTTP; `token` null sends no Authorization header. */
export async function callApi(
  host: Host,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Installs `integration` through the admin API; fails the test on anything but 201. */
export async function install(
  host: TestHost,
  integration: string,
  input: CreateInstallationInput,
): Promise<InstallationView> {
  const response = await host.admin(`/v1/integrations/${integration}/installations`, {
    method: 'POST',
    body: JSON.stringify(input),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`install ${integration}: ${response.status} ${JSON.stringify(body)}`);
  return body as InstallationView;
}

/**
 * One platform API call made from inside an api-probe integration's isolate (the bridge path):
 * POSTs the call to the probe installation's public endpoint; `token` overrides its own token.
 */
export async function callThroughBridge(
  publicEndpoint: string,
  call: { method: string; path: string; body?: unknown; token?: string },
): Promise<ApiAnswer> {
  const response = await fetch(publicEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call),
  });
  if (response.status !== 200) throw new Error(`probe answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as ApiAnswer;
}
