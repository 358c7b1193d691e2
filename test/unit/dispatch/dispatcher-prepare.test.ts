// EventDispatcher.prepare builds ahead what an installation's first run() would build on its path (a
// host start's prefill): run() then dispatches the very environment prepare() built and handed to
// the sandbox, so nothing is built twice; an integration that cannot run gets nothing built.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventDispatcher, type SandboxRunner } from '../../../host/dispatch/event-dispatcher.ts';
import type { EventLog } from '../../../host/dispatch/event-log.ts';
import { createIntegrationRegistry } from '../../../host/integrations/registry.ts';
import type { Installation } from '../../../host/installations/model.ts';
import { loadIntegrations } from '../../../host/manifest/load.ts';
import type { LoadedIntegration } from '../../../host/manifest/types.ts';

const cacheDir = mkdtempSync(path.join(tmpdir(), 'dispatcher-prepare-'));
let hello: LoadedIntegration;

beforeAll(async () => {
  [hello] = (await loadIntegrations(['fixtures/integrations'], { env: {}, cacheDir })).filter(
    (integration) => integration.name === 'hello',
  );
  expect(hello?.status).toBe('ready');
});
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const installation = (id: string, integration = 'hello'): Installation =>
  Object.freeze({
    id,
    integration,
    organization: 'acme',
    target: 'organization',
    status: 'active',
    configuration: {},
    createdAt: '2026-01-01T00:00:00Z',
  });

function dispatcherWith(integrations: LoadedIntegration[]) {
  const prepared: object[] = [];
  const dispatched: object[] = [];
  const sandbox: SandboxRunner = {
    async dispatch(_integration, envelope) {
      dispatched.push(envelope.environment);
      return { response: { status: 200, headers: [], body: new Uint8Array() }, logs: [], durationMs: 1 };
    },
    prepareEnvironment: (environment) => void prepared.push(environment),
  };
  const eventLog = { record: () => undefined } as unknown as EventLog;
  const dispatcher = createEventDispatcher({
    registry: createIntegrationRegistry(integrations),
    sandbox,
    eventLog,
    tokenSecret: 'a-token-secret-for-this-test-only',
    baseUrl: 'http://127.0.0.1:8787',
    now: () => Date.parse('2026-01-01T00:00:00Z'),
    platform: { firstPartyOrganizations: [], firstPartyIntegrations: [], organizations: [], spaces: [], sites: [] },
    getInstallation: async () => undefined,
  });
  return { dispatcher, prepared, dispatched };
}

describe('EventDispatcher.prepare', () => {
  it('builds the environment once: the first run() dispatches the one prepare() handed to the sandbox', async () => {
    const { dispatcher, prepared, dispatched } = dispatcherWith([hello]);
    const record = installation('inst_prepared');
    expect(await dispatcher.prepare(record)).toBe(true);
    expect(prepared).toHaveLength(1);
    expect(prepared[0]).toMatchObject({ installation: { id: 'inst_prepared' } });
    await dispatcher.run(
      record,
      { type: 'fetch', request: { method: 'GET', url: 'http://127.0.0.1:8787/x', headers: [] } },
      null,
    );
    expect(dispatched[0]).toBe(prepared[0]);
  });

  it('builds nothing for an installation whose integration is not loaded', async () => {
    const { dispatcher, prepared } = dispatcherWith([hello]);
    expect(await dispatcher.prepare(installation('inst_elsewhere', 'not-loaded'))).toBe(false);
    expect(prepared).toHaveLength(0);
  });
});
