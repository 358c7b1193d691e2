// Starts what the exercise runs against: the loopback mock of every third party, and one real host
// (in this process, its sandbox workers forked with the loopback guard and the mock's CA) loading
// every integration, with a platform file naming the site-script ones first-party and placeholder secrets.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, dump, load } from 'js-yaml';
import { createHost, type Host } from '../../host/index.ts';
import { createMemoryLogger } from '../../host/common/logger.ts';
import { namespaceProblem, ownerOf } from '../../host/manifest/secret-namespace.ts';
import { INTERNAL_SCOPES } from '../../host/manifest/types.ts';
import { SCENE } from './exercise.ts';
import { hostClient, type HostClient } from './host-client.ts';
import { startMockThirdParty, type MockThirdParty } from './mock-third-party.ts';
import { placeholderHost, placeholderSecret } from './placeholders.ts';
import type { ExercisePlan } from './plan.ts';

export interface HarnessOptions {
  /** The folders holding the integrations (each a `--dir`). */
  dirs: string[];
  plans: ExercisePlan[];
  /** The mock's loopback address and ports (443/80 for URLs without a port; 0 for free ones). */
  address: string;
  httpsPort: number;
  httpPort: number;
}

export interface Harness {
  host: Host;
  mock: MockThirdParty;
  client: HostClient;
  /** Every socket a sandbox worker pointed somewhere other than the mock (must stay empty). */
  strayConnections: string[];
  /** The first-party integrations the platform file names. */
  firstParty: string[];
  /** Secrets outside an integration's namespace put in the host's secret store (`integration/NAME`), or why not. */
  storedSecrets: { stored: string[]; unavailable?: string };
  waitIdle(): Promise<void>;
  /** The current revision of a space as the platform API reports it (what the platform puts in its events). */
  currentRevision(space: string): Promise<string>;
  close(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUARD = fileURLToPath(new URL('./loopback-guard.ts', import.meta.url));
/** The platform's own probe (gitbook-compat-platform), loaded beside the integrations under exercise. */
const PLATFORM_DIR = fileURLToPath(new URL('./platform', import.meta.url));
const PROBE = 'gitbook-compat-platform';
const ADMIN_TOKEN = `gitbook-compat-${process.pid}-admin-token`;

/** The repository's platform data with the integrations that need internal scopes named first-party. */
function platformFile(folder: string, plans: ExercisePlan[]): { file: string; firstParty: string[] } {
  const data = load(readFileSync(path.join(ROOT, 'fixtures/platform.yaml'), 'utf8'), { schema: CORE_SCHEMA }) as Record<
    string,
    unknown
  >;
  const firstParty = plans
    .filter((plan) => plan.scopes.some((scope) => (INTERNAL_SCOPES as readonly string[]).includes(scope)))
    .map((plan) => plan.name);
  data.firstPartyIntegrations = firstParty;
  const file = path.join(folder, 'platform.yaml');
  writeFileSync(file, dump(data));
  return { file, firstParty };
}

/**
 * Stores, through the admin API, the placeholder of every secret variable outside its integration's
 * namespace, as an operator would, then waits (bounded) for the host to reload those integrations.
 * A host without a secret store answers 404 and they stay refused at load.
 */
async function storeOutsideSecrets(
  client: HostClient,
  plans: ExercisePlan[],
  env: Record<string, string>,
): Promise<Harness['storedSecrets']> {
  const names = plans.map((plan) => plan.name);
  const stored: string[] = [];
  for (const plan of plans) {
    for (const variable of plan.secretVariables) {
      if (namespaceProblem(variable, plan.name) === null && ownerOf(variable, names) === plan.name) continue;
      const answer = await client.admin(
        'PUT',
        `/v1/integrations/${encodeURIComponent(plan.name)}/secrets/${encodeURIComponent(variable)}`,
        { value: env[variable] },
      );
      if (answer.status === 404 && stored.length === 0)
        return { stored, unavailable: `the host has no secret store (PUT …/secrets answered ${answer.status})` };
      if (answer.status >= 300)
        return {
          stored,
          unavailable: `storing ${plan.name}/${variable} answered ${answer.status}: ${answer.text.slice(0, 200)}`,
        };
      stored.push(`${plan.name}/${variable}`);
    }
  }
  const waiting = new Set(stored.map((entry) => entry.split('/')[0]));
  for (let round = 0; round < 100 && waiting.size > 0; round++) {
    const listing =
      (
        (await client.admin('GET', '/v1/integrations')).json as
          | { items?: { name: string; status: string; errors?: string[] }[] }
          | undefined
      )?.items ?? [];
    for (const name of [...waiting]) {
      const entries = listing.filter((entry) => entry.name === name);
      if (
        entries.some((entry) => entry.status === 'ready') ||
        entries.every((entry) => !(entry.errors ?? []).some((error) => error.includes('/secrets/')))
      )
        waiting.delete(name);
    }
    if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return stored.length > 0 && waiting.size > 0
    ? { stored, unavailable: `still refused after storing their secrets: ${[...waiting].join(', ')}` }
    : { stored };
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const mock = await startMockThirdParty({
    address: options.address,
    httpsPort: options.httpsPort,
    httpPort: options.httpPort,
  });
  const scratch = mkdtempSync(path.join(tmpdir(), 'gitbook-compat-'));
  const saved = {
    NODE_OPTIONS: process.env.NODE_OPTIONS,
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS,
    GITBOOK_COMPAT_LOOPBACK: process.env.GITBOOK_COMPAT_LOOPBACK,
  };
  const restore = () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  // The sandbox workers are forked with this process's environment: they resolve every name to the
  // mock, refuse sockets outside loopback, and trust the mock's CA.
  process.env.NODE_OPTIONS = `${saved.NODE_OPTIONS ?? ''} --import=${JSON.stringify(GUARD)}`.trim();
  process.env.NODE_EXTRA_CA_CERTS = mock.caFile;
  process.env.GITBOOK_COMPAT_LOOPBACK = options.address;
  // A key for the host's secret store, where a host has one (the environment never gives a variable
  // outside an integration's namespace; an operator stores those).
  const env: Record<string, string> = { HOST_SECRETS_KEYS: `1:${randomBytes(32).toString('base64')}` };
  const resolve: Record<string, string[]> = {};
  for (const plan of options.plans) {
    const context = { integration: plan.name, originFor: mock.originFor };
    for (const variable of plan.secretVariables) env[variable] ??= placeholderSecret(variable, context);
    for (const host of [
      ...plan.hosts,
      placeholderHost(plan.name),
      ...plan.blocks.flatMap((block) => (block.link ? [new URL(block.link).hostname] : [])),
    ])
      resolve[host] = [options.address];
  }
  const strayConnections: string[] = [];
  const { file, firstParty } = platformFile(scratch, options.plans);
  let host: Host;
  try {
    host = await createHost({
      dirs: [...options.dirs, PLATFORM_DIR],
      host: '127.0.0.1',
      port: 0,
      dataPath: ':memory:',
      platformPath: file,
      adminToken: ADMIN_TOKEN,
      allowEgress: [options.address],
      testHooks: {
        egressResolve: resolve,
        onEgressConnect: ({ integration, address, port }) => {
          if (address !== options.address) strayConnections.push(`${integration} → ${address}:${port}`);
        },
      },
      autoInstall: false,
      env,
      logger: createMemoryLogger(),
      workers: 2,
    });
  } catch (error) {
    restore();
    await mock.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  const client = hostClient(host.url, ADMIN_TOKEN);
  const storedSecrets = await storeOutsideSecrets(client, options.plans, env);
  const probe = await client.admin('POST', `/v1/integrations/${PROBE}/installations`, {
    organization: SCENE.organization,
    target: 'space',
    space: SCENE.space,
  });
  if (probe.status !== 201) {
    await host.close();
    restore();
    await mock.close();
    throw new Error(`could not install the exercise's probe ${PROBE}: ${probe.status} ${probe.text.slice(0, 300)}`);
  }
  const probeEndpoint = (probe.json as { urls: { publicEndpoint: string } }).urls.publicEndpoint;
  const currentRevision = async (space: string) => {
    const answer = await client.open('GET', `${probeEndpoint}?space=${encodeURIComponent(space)}`);
    const revision = (answer.json as { revision?: unknown } | undefined)?.revision;
    if (answer.status !== 200 || (typeof revision !== 'string' && typeof revision !== 'number'))
      throw new Error(
        `the probe could not read the revision of ${space}: ${answer.status} ${answer.text.slice(0, 200)}`,
      );
    return String(revision);
  };
  const waitIdle = async () => {
    for (let quiet = 0; quiet < 3; ) {
      quiet = host.supervisor.inFlightCount() === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    host,
    mock,
    client,
    strayConnections,
    firstParty,
    storedSecrets,
    waitIdle,
    currentRevision,
    async close() {
      await host.close();
      restore();
      await mock.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
