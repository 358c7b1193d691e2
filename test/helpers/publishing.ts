// A host to publish to and the calls an author or an attacker makes to it, for the publishing
// tests: publisher tokens issued through the admin API, uploads of any bytes, what the store holds.

import type { VersionSummary } from '../../host/publish/model.ts';
import { afterAll, beforeAll } from 'vitest';
import { startTestHost, type TestHost } from './host.ts';

export async function startPublishingHost(): Promise<TestHost> {
  return startTestHost({ dirs: ['test/fixtures/env-echo'], autoInstall: false, workers: 1 });
}

/**
 * For a test file: a publishing host and an `acme` publisher token, started before its tests (handed to `ready`)
 * and closed after them.
 */
export function withPublishingHost(ready: (host: TestHost, token: string) => void): void {
  let host: TestHost | undefined;
  beforeAll(async () => {
    host = await startPublishingHost();
    ready(host, (await issueToken(host, 'acme')).token);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });
}

export async function issueToken(host: TestHost, organization: string): Promise<{ id: string; token: string }> {
  const answer = await host.admin('/v1/publishers', { method: 'POST', body: JSON.stringify({ organization }) });
  if (answer.status !== 201) throw new Error(`issuing a publisher failed: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as { id: string; token: string };
}

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** POSTs `body` as a gzipped tar to the integration's versions with `token`. */
export async function uploadTo(
  host: TestHost,
  name: string,
  token: string,
  body: Uint8Array | ReadableStream<Uint8Array>,
): Promise<{ status: number; body: Record<string, unknown> & { error?: Refusal } }> {
  const answer = await fetch(`${host.url}/v1/integrations/${name}/versions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
    body: body as BodyInit,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> & { error?: Refusal } };
}

/** Every version the store holds for `name` (none for a refused first upload). */
export const storedVersions = (host: TestHost, name: string): Promise<VersionSummary[]> =>
  host.stores.versions.list(name);
