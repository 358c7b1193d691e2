// A fake HostServices for the server tests: canned integrations and installations, recorded
// calls, and SandboxResponses chosen per test. Never touches a sandbox, store or file.

import type { Server } from 'node:http';
import { afterEach, beforeEach } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostError } from '../../../host/common/errors.ts';
import type { LoadedIntegration } from '../../../host/manifest/types.ts';
import type { DispatchOutcome } from '../../../host/dispatch/event-dispatcher.ts';
import type { HostServices } from '../../../host/server/services.ts';
import type { CreateInstallationInput, Installation, InstallationView } from '../../../host/installations/model.ts';
import type { SandboxResponse } from '../../../sandbox-api/runtime/contract.ts';
import { createApp, createRequestListener, type AppLimits } from '../../../host/server/app.ts';
import { createEventFeed, type EventFeed } from '../../../host/dispatch/event-feed.ts';
import { createConnectTickets } from '../../../host/installations/connect-ticket.ts';
import { createOAuthSeal } from '../../../host/oauth-seal/seal.ts';
import {
  createSealedStates,
  type SealedStateRow,
  type SealedStateStore,
} from '../../../host/oauth-seal/sealed-states.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface DispatchCall {
  installationId: string;
  event: Record<string, unknown>;
  fetchBody: Uint8Array | null;
}

export interface FakeServices extends HostServices {
  baseUrlValue: string;
  dispatchCalls: DispatchCall[];
  createCalls: { integration: string; input: CreateInstallationInput }[];
  publishCalls: Record<string, unknown>[];
  logs: { level: 'info' | 'warn' | 'error'; message: string }[];
  /** What the next dispatches answer (a function sees the event); a thrown error propagates. */
  respond: (call: DispatchCall) => SandboxResponse | Promise<SandboxResponse>;
  /** The runtime verdict the next dispatches carry (e.g. 'component-not-found'). */
  verdict?: DispatchOutcome['verdict'];
  /** The live feed behind followEvents; tests publish entries into it. */
  feed: EventFeed;
  publishImpl: (
    event: Record<string, unknown>,
  ) => Promise<{ eventId: string; dispatched: { installationId: string; integration: string; status: number }[] }>;
  /** Integrations whose OAuth flows the fake seals (none unless a test adds one). */
  sealed: Set<string>;
  /** The fake's clock (ms), read by its tickets and sealed states. */
  now: number;
  sealedRows: Map<string, SealedStateRow>;
}

/** The sealed-state store in memory, with the same single-use rule as the real ones. */
function memorySealedStates(rows: Map<string, SealedStateRow>): SealedStateStore {
  return {
    insert: async (row) => void rows.set(row.nonce, { ...row, usedAt: null }),
    get: async (nonce) => (rows.has(nonce) ? { ...rows.get(nonce)! } : undefined),
    async markUsed(nonce, usedAtMs) {
      const row = rows.get(nonce);
      if (row === undefined || row.usedAt !== null) return false;
      row.usedAt = usedAtMs;
      return true;
    },
    deleteExpired: async (beforeMs) => {
      for (const [nonce, row] of rows) if (row.expiresAt < beforeMs) rows.delete(nonce);
    },
  };
}

export function sandboxResponse(
  status: number,
  headers: [string, string][] = [],
  body: string | Uint8Array = '',
  statusText?: string,
): SandboxResponse {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return statusText === undefined ? { status, headers, body: bytes } : { status, statusText, headers, body: bytes };
}

export function jsonResponse(status: number, value: unknown, extra: [string, string][] = []): SandboxResponse {
  return sandboxResponse(status, [['content-type', 'application/json'], ...extra], JSON.stringify(value));
}

const INTEGRATIONS: LoadedIntegration[] = [
  {
    name: 'hello',
    dir: '/fixtures/hello',
    manifestPath: '/fixtures/hello/platform-manifest.yaml',
    status: 'ready',
    manifest: {
      name: 'hello',
      title: 'Hello',
      description: 'Says hello',
      summary: 'A longer summary',
      organization: 'acme',
      visibility: 'public',
      scopes: ['space:content:read'],
      script: './src/index.ts',
      blocks: [{ id: 'greeting', title: 'Greeting', description: 'A greeting block' }],
      categories: ['other'],
      externalLinks: [{ label: 'Docs', url: 'https://example.com/docs' }],
      configurations: { account: { properties: { name: { type: 'string', title: 'Name', description: 'Who' } } } },
      secrets: { API_KEY: '${{ env.HELLO_API_KEY }}' },
    },
    secrets: { API_KEY: 'super-secret-value' },
    bundle: { code: 'BUNDLE_CODE', hash: 'abc' },
    errors: [],
    warnings: [{ file: 'platform-manifest.yaml', pointer: '/summary', message: 'summary is long' }],
  },
  {
    name: 'broken',
    dir: '/fixtures/broken',
    manifestPath: '/fixtures/broken/platform-manifest.yaml',
    status: 'invalid',
    secrets: {},
    errors: [
      { file: 'platform-manifest.yaml', pointer: '/scopes/0', message: 'must be one of the known scopes' },
      { file: 'platform-manifest.yaml', pointer: '', message: 'is not valid YAML' },
    ],
    warnings: [],
  },
];

function installation(id: string, integration: string): InstallationView {
  return {
    id,
    integration,
    organization: 'acme',
    target: 'organization',
    status: 'active',
    configuration: {},
    createdAt: '2024-01-01T00:00:00.000Z',
    urls: { publicEndpoint: `http://127.0.0.1/v1/integrations/${integration}/installations/${id}`, buttons: {} },
  };
}

function recordOf(view: InstallationView | undefined): Installation | undefined {
  if (view === undefined) return undefined;
  const { urls: _urls, space_selection: _selection, ...record } = view;
  return record;
}

export function createFakeServices(): FakeServices {
  const installations = new Map([
    ['inst-1', installation('inst-1', 'hello')],
    ['inst-other', installation('inst-other', 'other')],
  ]);
  const sealedRows = new Map<string, SealedStateRow>();
  const clock = () => fake.now;
  const unpublished = async (): Promise<never> => {
    throw new HostError('ERR_INTEGRATION_NOT_FOUND', 'no version was ever published');
  };
  const fake: FakeServices = {
    // Publishing has its own tests against real stores; here nothing was ever published.
    publishing: {
      authenticate: async () => {
        throw new HostError('ERR_FORBIDDEN', 'publisher token is not valid');
      },
      publish: unpublished,
      versions: unpublished,
      makeCurrent: unpublished,
      issuePublisher: unpublished,
      listPublishers: async () => [],
      revokePublisher: unpublished,
    },
    sealed: new Set(),
    now: Date.parse('2026-06-01T12:00:00Z'),
    sealedRows,
    oauthSeal: createOAuthSeal({
      integration: (name) => {
        const found = INTEGRATIONS.find((integration) => integration.name === name);
        return found !== undefined && fake.sealed.has(name) ? { ...found, manifestKind: 'gitbook' } : found;
      },
      tickets: createConnectTickets({ secret: 'fake-secret', now: clock }),
      states: createSealedStates({ store: memorySealedStates(sealedRows), secret: 'fake-secret', now: clock }),
    }),
    adminToken: ADMIN_TOKEN,
    baseUrlValue: 'http://host.test:8787',
    dispatchCalls: [],
    createCalls: [],
    publishCalls: [],
    logs: [],
    log: {
      info: (message) => void fake.logs.push({ level: 'info', message }),
      warn: (message) => void fake.logs.push({ level: 'warn', message }),
      error: (message) => void fake.logs.push({ level: 'error', message }),
    },
    platformApi: {
      isHostToken: async () => false,
      handle: async () => ({
        status: 404,
        headers: [['content-type', 'application/json']],
        body: new TextEncoder().encode('{"error":{"code":"ERR_NOT_FOUND","message":"fake"}}'),
      }),
    },
    respond: () => jsonResponse(200, { ok: true }),
    feed: createEventFeed(),
    publishImpl: async () => ({
      eventId: 'evt-1',
      dispatched: [{ installationId: 'inst-1', integration: 'hello', status: 200 }],
    }),
    baseUrl: () => fake.baseUrlValue,
    listIntegrations: () => INTEGRATIONS,
    getIntegration: (name) => INTEGRATIONS.find((integration) => integration.name === name),
    async createInstallation(integration, input) {
      fake.createCalls.push({ integration, input });
      if (!INTEGRATIONS.some((i) => i.name === integration))
        throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${integration}" not found`);
      return {
        ...installation('inst-new', integration),
        organization: input.organization,
        target: input.target,
        status: 'pending',
      };
    },
    async getInstallation(id) {
      const found = installations.get(id);
      if (!found) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" not found`);
      return found;
    },
    findInstallation: async (id) => recordOf(installations.get(id)),
    listInstallations: async (query) => ({
      items: [...installations.values()]
        .filter((view) => query.integration === undefined || view.integration === query.integration)
        .slice(0, query.limit),
      nextCursor: null,
    }),
    requireInstallation: async (id) => recordOf(await fake.getInstallation(id))!,
    async dispatch(installation, event, fetchBody): Promise<DispatchOutcome> {
      const call = {
        installationId: installation.id,
        event: { ...(event as Record<string, unknown>), installationId: installation.id },
        fetchBody,
      };
      fake.dispatchCalls.push(call);
      const response = await fake.respond(call);
      return { response, ...(fake.verdict ? { verdict: fake.verdict } : {}), durationMs: 1, logs: [] };
    },
    async dispatchToIntegration(integration, event, fetchBody): Promise<DispatchOutcome> {
      if (!INTEGRATIONS.some((i) => i.name === integration))
        throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${integration}" not found`);
      const call = { installationId: '', event: { ...(event as Record<string, unknown>), integration }, fetchBody };
      fake.dispatchCalls.push(call);
      const response = await fake.respond(call);
      return { response, durationMs: 1, logs: [] };
    },
    // Assets are read from real folders (test/integration/gitbook-environment.test.ts).
    readIntegrationAsset: async (integration, path) => {
      throw new HostError('ERR_NOT_FOUND', `integration "${integration}" has no asset "${path}"`);
    },
    async publishEvent(event) {
      fake.publishCalls.push(event);
      return fake.publishImpl(event);
    },
    // The lifecycle routes are tested against the real host (test/integration); here they only exist.
    deleteInstallation: async (id) => void (await fake.getInstallation(id)),
    updateConfiguration: (id) => fake.getInstallation(id),
    completeProperty: async () => ({ items: [] }),
    installLinkOf: () => undefined,
    listEvents: async () => ({ items: [], nextCursor: null }),
    listTasks: async () => ({ items: [], nextCursor: null }),
    async listOwedEvents(id) {
      await fake.getInstallation(id);
      return { items: [] };
    },
    // Site scripts are tested against the real host (test/integration/site-scripts.test.ts).
    siteScripts: {
      list: async (siteId) => ({ siteId, items: [] }),
      script: async (siteId, installationId) => {
        throw new HostError('ERR_NOT_FOUND', `site "${siteId}" has no script from installation "${installationId}"`);
      },
    },
    getEvent: async (integration, eventId) => {
      throw new HostError('ERR_NOT_FOUND', `integration "${integration}" has no event "${eventId}" in its log`);
    },
    async followEvents(integration, filter, follower) {
      if (!INTEGRATIONS.some((i) => i.name === integration))
        throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${integration}" not found`);
      if (
        filter.installationId !== undefined &&
        installations.get(filter.installationId)?.integration !== integration
      ) {
        throw new HostError(
          'ERR_INSTALLATION_NOT_FOUND',
          `installation "${filter.installationId}" of integration "${integration}" not found`,
        );
      }
      const wanted = filter.installationId;
      return fake.feed.follow(
        integration,
        wanted === undefined
          ? follower
          : { entry: (entry) => entry.installationId === wanted && follower.entry(entry), end: follower.end },
      );
    },
    // The webhook routes are tested against the real host (test/integration/webhook-host.test.ts).
    listDeliveries: async () => ({ items: [], nextCursor: null }),
    redeliver: async (id) => {
      throw new HostError('ERR_NOT_FOUND', `delivery "${id}" not found`);
    },
    readiness: async () => ({ ready: true, checks: { store: 'ok', workers: 'ok', host: 'serving' } }),
    metrics: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '# fake\n' }),
    rotateSigningSecret: async (id) => {
      throw new HostError('ERR_NOT_FOUND', `installation "${id}" is not a webhook installation`);
    },
    // Stored secrets are tested against the real host (test/integration/stored-secrets.test.ts).
    listSecrets: async (integration) => {
      throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${integration}" not found`);
    },
    setSecret: async (integration) => {
      throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${integration}" not found`);
    },
    unsetSecret: async (integration) => {
      throw new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${integration}" not found`);
    },
  };
  return fake;
}

export interface RunningApp {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves `services` as the host does (its request listener: the direct public path in front of
 * Koa), or with `koaOnly` through the Koa app alone (to compare the two).
 */
export async function startApp(
  services: HostServices,
  limits?: AppLimits,
  options: { koaOnly?: boolean } = {},
): Promise<RunningApp> {
  const server = createServer(
    options.koaOnly ? createApp(services, limits).callback() : createRequestListener(services, limits),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Registers a fresh fake-services app for each test of the calling file (beforeEach/afterEach);
 * read `services` and `app` from the returned object inside tests.
 */
export function useFakeApp(limits?: AppLimits): { readonly services: FakeServices; readonly app: RunningApp } {
  const current: { services?: FakeServices; app?: RunningApp } = {};
  beforeEach(async () => {
    current.services = createFakeServices();
    current.app = await startApp(current.services, limits);
  });
  afterEach(async () => {
    await current.app?.close();
  });
  return {
    get services() {
      return current.services!;
    },
    get app() {
      return current.app!;
    },
  };
}
