// Publishing on one host: an author's folder from outside the host's --dir is published with an
// organization's publisher token and served; a second version replaces it without a restart; the
// event log names the version that served each event; a rollback restores the first; a version
// whose isolate cannot start is refused and the current one keeps serving; the versions list says
// which is current; a request in flight when a version is replaced finishes on the old one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz, type TarEntry } from '../helpers/archives.ts';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';

let host: TestHost;
let token: string;
let endpoint: string;

const upload = (entries: TarEntry[], name = 'greeter', bearer = token) =>
  fetch(`${host.url}/v1/integrations/${name}/versions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/gzip' },
    body: new Uint8Array(tarGz(entries)),
  });

const greeting = async () => ((await (await fetch(endpoint)).json()) as { greeting: string }).greeting;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/env-echo'], autoInstall: false, workers: 1 });
  const issued = await host.admin('/v1/publishers', {
    method: 'POST',
    body: JSON.stringify({ organization: 'acme', label: 'ci' }),
  });
  expect(issued.status).toBe(201);
  token = ((await issued.json()) as { token: string }).token;
}, 120_000);

afterAll(async () => {
  await host?.close();
});

describe('publishing to one host', () => {
  it('serves a folder published with an organization token, with no folder on the host', async () => {
    const answer = await upload(integrationFiles('greeter', 'acme', 'hello'));
    const body = (await answer.json()) as Record<string, unknown>;
    expect(answer.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ integration: 'greeter', version: 1, current: true, organization: 'acme' });
    expect(String(body.publishedBy)).toMatch(/^publisher:pub_[0-9a-f]{16}$/);
    expect(String(body.contentHash)).toMatch(/^[0-9a-f]{64}$/);
    const created = await host.admin('/v1/integrations/greeter/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    expect(created.status).toBe(201);
    endpoint = ((await created.json()) as { urls: { publicEndpoint: string } }).urls.publicEndpoint;
    expect(await greeting()).toBe('hello');
  });

  it('answers the same upload again with the current version and stores nothing new', async () => {
    const answer = await upload(integrationFiles('greeter', 'acme', 'hello'));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ version: 1, current: true });
  });

  it('replaces it with a second version without a restart, and the event log names each version', async () => {
    const answer = await upload(integrationFiles('greeter', 'acme', 'hi'));
    expect(answer.status).toBe(201);
    expect(await answer.json()).toMatchObject({ version: 2, current: true });
    expect(await greeting()).toBe('hi');
    const events = (await (await host.admin('/v1/integrations/greeter/events')).json()) as {
      items: { version?: number }[];
    };
    // Newest first: the request just served by version 2, then version 1's request and setup event.
    const versions = events.items.map((event) => event.version);
    expect(versions[0]).toBe(2);
    expect(versions.slice(1).length).toBeGreaterThan(0);
    expect(new Set(versions.slice(1))).toEqual(new Set([1]));
  });

  it('rolls back to the first version in one call', async () => {
    const answer = await fetch(`${host.url}/v1/integrations/greeter/versions/1/current`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ version: 1, current: true });
    expect(await greeting()).toBe('hello');
  });

  it('refuses a version whose isolate cannot start, and the current one keeps serving', async () => {
    const [manifest] = integrationFiles('greeter');
    const answer = await upload([
      manifest,
      { name: 'src/index.ts', body: "throw new Error('broken at the top level');\nexport default {};\n" },
    ]);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(answer.status).toBe(422);
    expect(body.error.code).toBe('ERR_VERSION_FAILED_TO_START');
    expect(body.error.message).toContain('broken at the top level');
    expect(body.error.message).toContain('version 1 keeps serving');
    expect(await greeting()).toBe('hello');
    const versions = (await (
      await fetch(`${host.url}/v1/integrations/greeter/versions`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { items: { version: number; current: boolean }[] };
    expect(versions.items.map((item) => [item.version, item.current])).toEqual([
      [2, false],
      [1, true],
    ]);
    await waitFor(() => host.supervisor.inFlightCount() === 0, 10_000);
  });

  it('lets a request in flight finish on the version it started on; the next runs the new one', async () => {
    const slow = (answer: string, delayMs: number): TarEntry[] => [
      integrationFiles('slowpoke')[0],
      {
        name: 'src/index.ts',
        body:
          "import { createIntegration } from 'sandbox-api';\n" +
          'export default createIntegration({ fetch: async () => {\n' +
          `  await new Promise((resolve) => setTimeout(resolve, ${delayMs}));\n` +
          `  return Response.json({ greeting: ${JSON.stringify(answer)} });\n} });\n`,
      },
    ];
    expect((await upload(slow('old', 3_000), 'slowpoke')).status).toBe(201);
    const created = await host.admin('/v1/integrations/slowpoke/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    const url = ((await created.json()) as { urls: { publicEndpoint: string } }).urls.publicEndpoint;
    const inFlight = fetch(url).then(async (answer) => ((await answer.json()) as { greeting: string }).greeting);
    await waitFor(() => host.supervisor.inFlightCount('slowpoke') > 0, 10_000);
    expect((await upload(slow('new', 0), 'slowpoke')).status).toBe(201);
    expect(((await (await fetch(url)).json()) as { greeting: string }).greeting).toBe('new');
    expect(await inFlight).toBe('old');
  });
});
