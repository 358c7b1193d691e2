// The exercise machinery end to end on integrations of our own in GitBook's format: the three of
// fixtures/gitbook work (OAuth through the loopback provider, a site script, a block's actions), and
// fixtures/gitbook/compat-cases holds one integration per other outcome. Also the loopback guard the
// sandbox workers are started with: every name resolves to the mock, no socket leaves loopback.
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exerciseIntegration, type IntegrationResult } from './exercise.ts';
import { startHarness, type Harness } from './harness.ts';
import { integrationFolders, planExercise } from './plan.ts';
import { summaryLine } from './report.ts';
import { workersGlobals } from './runtime-globals.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIRS = [path.join(ROOT, 'fixtures/gitbook'), path.join(ROOT, 'fixtures/gitbook/compat-cases')];
// An address of its own in 127.0.0.0/8, so nothing else listening on loopback is reachable from the guests.
const ADDRESS = `127.43.${randomInt(1, 255)}.${randomInt(1, 255)}`;

let harness: Harness;
const results = new Map<string, IntegrationResult>();

beforeAll(async () => {
  const plans = DIRS.flatMap((dir) => integrationFolders(dir)).map(planExercise);
  harness = await startHarness({ dirs: DIRS, plans, address: ADDRESS, httpsPort: 0, httpPort: 0 });
  const context = {
    client: harness.client,
    mock: harness.mock,
    runtimeGlobals: workersGlobals(),
    waitIdle: harness.waitIdle,
    currentRevision: harness.currentRevision,
  };
  for (const plan of plans) results.set(plan.name, await exerciseIntegration(context, plan));
}, 240_000);
afterAll(() => harness?.close());

const outcome = (name: string) => {
  const result = results.get(name);
  return { outcome: result?.outcome, evidence: result?.evidence };
};

describe("the exercise of integrations in GitBook's format", () => {
  it('classifies each and sums them up', () => {
    expect(Object.fromEntries([...results].map(([name, result]) => [name, result.outcome]))).toEqual({
      'compat-host-gap': 'broken by the host',
      'compat-needs-build': 'cannot be built',
      'compat-own-failure': 'fails in its own code',
      'page-analytics': 'works',
      'snippet-preview': 'works',
      'space-digest': 'works',
    });
    expect(summaryLine([...results.values()])).toBe(
      '3 of 6 work, 1 cannot be built, 1 fail in their own code, 1 broken by the host',
    );
  });

  it('connects space-digest through the loopback provider, fires its event and waits for its task', () => {
    const digest = results.get('space-digest')!;
    expect(digest.exercised).toEqual([
      'install space+organization',
      'connect oauth_credentials',
      'endpoints ×2',
      'events: space_content_updated 200',
    ]);
    expect(digest.steps.find((step) => step.what === 'connect oauth_credentials')).toEqual({
      what: 'connect oauth_credentials',
      status: 200,
    });
    const provider = harness.mock.requests
      .filter((request) => request.label === 'space-digest')
      .map((request) => `${request.method} ${request.host} ${request.path.split('?')[0]}`);
    expect(provider).toEqual([
      'GET space-digest.mock.test /space_digest_authorize_url',
      'POST space-digest.mock.test /space_digest_token_url',
    ]);
  });

  it("serves page-analytics's site script from its site installation (first-party by the platform file)", () => {
    expect(harness.firstParty).toEqual(['page-analytics']);
    expect(results.get('page-analytics')!.steps).toContainEqual({ what: 'site script', status: 200 });
  });

  it("presses the actions of snippet-preview's block", () => {
    const presses = results.get('snippet-preview')!.steps.filter((step) => step.what.startsWith('press '));
    expect(presses.map((step) => [step.what, step.status])).toEqual([
      ['press snippet.reset in block snippet', 200],
      ['press snippet.changed in block snippet', 200],
    ]);
  });

  it('names the missing generated module and the build step that makes it', () => {
    expect(outcome('compat-needs-build')).toEqual({
      outcome: 'cannot be built',
      evidence: [
        'script imports "./generated/client" (from src/index.ts), which does not exist: it is probably generated ' +
          'by the integration\'s own build step (package.json scripts: "build": "node scripts/generate.mjs"); run ' +
          "it first (npm run build in the integration's folder), then check again",
      ],
    });
  });

  it('blames the integration for refusing a placeholder key, with its own error from the log', () => {
    const { evidence } = outcome('compat-own-failure');
    expect(evidence).toEqual([
      'press verify in block key-checker: 502 ERR_SANDBOX_BAD_RESPONSE the integration failed to render',
      expect.stringMatching(/^ui_render dispatch 500: .*Error: invalid API key "placeholder-key"/),
    ]);
  });

  it("blames the host for a global of GitBook's runtime it lacks, naming it", () => {
    expect(outcome('compat-host-gap').evidence?.[0]).toBe(
      "fetch: ReferenceError: HTMLRewriter is not defined (a global of GitBook's runtime)",
    );
  });

  it('reaches a third party whose name only the guard resolves, and no socket goes anywhere but the mock', () => {
    const hosts = harness.mock.requests
      .filter((request) => request.label === 'compat-own-failure')
      .map((request) => request.host);
    expect(hosts).toContain('status.compat-own-failure.mock.test');
    expect(results.get('compat-own-failure')!.thirdParties).toEqual(['status.compat-own-failure.mock.test']);
    expect(harness.strayConnections).toEqual([]);
  });
});

describe('the loopback guard of the sandbox workers', () => {
  const guard = fileURLToPath(new URL('./loopback-guard.ts', import.meta.url));
  const probe = `
    import dns from 'node:dns';
    import net from 'node:net';
    const resolved = await new Promise((resolve) => dns.lookup('api.github.com', { all: true }, (error,
      all) => resolve(error ? String(error) : all)));
    const refused = await new Promise((resolve) => {
      const socket = net.connect({ host: '192.0.2.1', port: 9 });
      socket.on('connect', () => resolve('connected'));
      socket.on('error', (error) => resolve(error.message));
    });
    process.stdout.write(JSON.stringify({ resolved, refused }));`;

  it(
    "resolves every name to the mock's address and destroys a " + 'socket aimed outside loopback before it connects',
    () => {
      const output = execFileSync(process.execPath, ['--import', guard, '--input-type=module', '-e', probe], {
        env: { ...process.env, GITBOOK_COMPAT_LOOPBACK: ADDRESS },
        encoding: 'utf8',
      });
      expect(JSON.parse(output)).toEqual({
        resolved: [{ address: ADDRESS, family: 4 }],
        refused: 'loopback-guard: refused a connection to 192.0.2.1 (192.0.2.1): the exercise never leaves 127.0.0.0/8',
      });
    },
  );
});
