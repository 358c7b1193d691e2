// The test harness for integration authors (what `npm run new` puts in test/): serves one
// integration folder on a real host (loopback, a free port, a throwaway store, one sandbox
// worker), installed in its manifest's organization, with helpers for its endpoint and the admin
// API. The integration runs exactly as under `npm run dev`: same bundle, isolate and checks.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryLogger } from '../common/logger.ts';
import { withDevDefaults } from '../config/dev-env.ts';
import { createHost, type Host } from '../index.ts';
import { formatProblem } from '../manifest/format.ts';

const PLATFORM_FILE = fileURLToPath(new URL('../../fixtures/platform.yaml', import.meta.url));

export interface HarnessOptions {
  /** Hosts or CIDRs the integration's fetch may reach although not public (a local fake API). */
  allowEgress?: string[];
  /** Extra environment variables (secrets); `.dev.vars` fills what stays unset. */
  env?: Record<string, string>;
}

export interface IntegrationHarness {
  host: Host;
  /** The integration's name (from its manifest). */
  name: string;
  /** Its installation made at start (organization level, in its manifest's organization). */
  installationId: string;
  /** That installation's public endpoint. */
  endpoint: string;
  /** A request to the public endpoint; `subpath` is appended to it (`/oauth`, `?q=1`). */
  fetch(subpath?: string, init?: RequestInit): Promise<Response>;
  /** A request to the host's admin API (`/v1/...`), JSON bodies welcome. */
  admin(route: string, init?: RequestInit): Promise<Response>;
  /** The host's log lines so far (the integration's console output included). */
  logs(): string[];
  close(): Promise<void>;
}

/** Starts a host serving the integration in `folder`; throws with every problem if it does not load. */
export async function startIntegration(folder: string, options: HarnessOptions = {}): Promise<IntegrationHarness> {
  const logger = createMemoryLogger();
  const adminToken = randomBytes(24).toString('base64url');
  const { env } = withDevDefaults({ ...process.env, ...options.env });
  const host = await createHost({
    dirs: [path.resolve(folder)],
    port: 0,
    dataPath: ':memory:',
    platformPath: PLATFORM_FILE,
    workers: 1,
    adminToken,
    logger,
    env,
    devVars: true,
    bundleMode: 'development',
    ...(options.allowEgress ? { allowEgress: options.allowEgress } : {}),
  });
  const integration = host.integrations.find((candidate) => candidate.builtin === undefined);
  const installation = host.devInstallations.find((entry) => entry.integration === integration?.name)?.installation;
  if (integration === undefined || integration.status !== 'ready' || installation === undefined) {
    const problems = integration?.errors.map(formatProblem).join('\n  ') ?? `no platform-manifest.yaml in ${folder}`;
    await host.close();
    throw new Error(`the integration in ${folder} did not load:\n  ${problems}`);
  }
  const admin = (route: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${adminToken}`);
    if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${host.url}${route}`, { ...init, headers });
  };
  return {
    host,
    name: integration.name,
    installationId: installation.id,
    endpoint: installation.urls.publicEndpoint,
    fetch: (subpath = '', init) => fetch(`${installation.urls.publicEndpoint}${subpath}`, init),
    admin,
    logs: () => [...logger.lines],
    close: () => host.close(),
  };
}
