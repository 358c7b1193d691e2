// The test harness for integration authors (what `npm run new` puts in test/): serves one
// integration folder on a real host (loopback, a free port, a throwaway store, one sandbox
// worker), installed in its manifest's organization, with helpers for its endpoint and the admin
// API. The integration runs exactly as under `npm run dev`: same bundle, isolate and checks.

import { SAMPLE_PLATFORM } from '../common/package-root.ts';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createMemoryLogger } from '../common/logger.ts';
import { withDevDefaults } from '../config/dev-env.ts';
import { createHost } from '../index.ts';
import { formatProblem } from '../manifest/format.ts';
import type { HarnessOptions, IntegrationHarness, startIntegration as declared } from './harness-api.ts';

export type { HarnessOptions, IntegrationHarness };

/** Starts a host serving the integration in `folder`; throws with every problem if it does not load. */
export const startIntegration: typeof declared = async (folder, options = {}) => {
  const logger = createMemoryLogger();
  const adminToken = randomBytes(24).toString('base64url');
  const { env } = withDevDefaults({ ...process.env, ...options.env });
  const host = await createHost({
    dirs: [path.resolve(folder)],
    port: 0,
    dataPath: ':memory:',
    platformPath: SAMPLE_PLATFORM,
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
    url: host.url,
    name: integration.name,
    installationId: installation.id,
    endpoint: installation.urls.publicEndpoint,
    fetch: (subpath = '', init) => fetch(`${installation.urls.publicEndpoint}${subpath}`, init),
    admin,
    logs: () => [...logger.lines],
    close: () => host.close(),
  };
};
