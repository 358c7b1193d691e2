// Built-in names never squat an author's: the host's built-ins are named `host:<name>`, so an
// author's integration named like one (here `webhook`, as GitBook's own) loads, every route of
// that name reaches the author's integration, and the built-in keeps working beside it under its
// own name. A client that still says `webhook` with no such integration loaded is told the new name,
// and a folder declaring `host:webhook` never takes the built-in's place, not even on a reload.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { GOOD_SCRIPT, manifestYaml, TempDirs } from '../unit/manifest/temp-integration.ts';

const FIXTURES = 'test/fixtures/builtin-names';

let host: TestHost;
let receiver: http.Server;
let receiverUrl = '';
const received: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  host = await startTestHost({ dirs: [FIXTURES], autoInstall: false, allowEgress: ['127.0.0.1'] });
}, 60_000);
afterAll(async () => {
  await host?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function json(response: Promise<Response>): Promise<{ status: number; body: any }> {
  const answer = await response;
  return { status: answer.status, body: await answer.json() };
}

const install = (integration: string, body: object) =>
  json(host.admin(`/v1/integrations/${integration}/installations`, { method: 'POST', body: JSON.stringify(body) }));

describe("an author's integration named like a built-in", () => {
  it("exists for every built-in: this folder holds an author's namesake of each, and each loads", () => {
    const builtins = host.integrations
      .filter((integration) => integration.builtin !== undefined)
      .map((integration) => integration.name);
    expect(builtins).toContain('host:webhook');
    const namesakes = readdirSync(FIXTURES).map(
      (folder) =>
        (load(readFileSync(path.join(FIXTURES, folder, 'gitbook-manifest.yaml'), 'utf8')) as { name: string }).name,
    );
    for (const builtin of builtins) {
      expect(builtin).toMatch(/^host:/);
      const own = builtin.slice('host:'.length);
      expect(namesakes).toContain(own);
      expect(host.integrations.find((integration) => integration.name === own)).toMatchObject({
        status: 'ready',
        errors: [],
      });
    }
  });

  it('is listed beside the built-in, and each name answers its own integration', async () => {
    const { body: list } = await json(host.admin('/v1/integrations'));
    expect(list.items).toContainEqual(
      expect.objectContaining({ name: 'webhook', title: "Author's webhook", status: 'ready' }),
    );
    expect(list.items).toContainEqual(
      expect.objectContaining({ name: 'host:webhook', title: 'Webhook', status: 'ready' }),
    );
    expect((await json(host.admin('/v1/integrations/webhook'))).body).toMatchObject({
      name: 'webhook',
      organization: 'acme',
      scopes: ['space:content:read'],
    });
    expect((await json(host.admin('/v1/integrations/host:webhook'))).body).toMatchObject({
      name: 'host:webhook',
      organization: 'platform',
    });
    // Percent-encoded, as the console and every URL builder send it.
    expect((await json(host.admin(`/v1/integrations/${encodeURIComponent('host:webhook')}`))).body).toMatchObject({
      name: 'host:webhook',
    });
  });

  it('is the one its install route, public endpoint and integration endpoint reach', async () => {
    const created = await install('webhook', { organization: 'acme', target: 'space', space: 'space_acme_docs' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ integration: 'webhook', target: 'space', status: 'active' });
    expect(created.body.signingSecret).toBeUndefined();
    const endpoint: string = created.body.urls.publicEndpoint;
    expect(endpoint).toBe(`${host.url}/v1/integrations/webhook/installations/${created.body.id}`);

    const answer = await json(fetch(`${endpoint}/ping`));
    expect(answer).toEqual({
      status: 200,
      body: {
        answeredBy: 'author-webhook',
        integration: 'webhook',
        installation: created.body.id,
        path: `/v1/integrations/webhook/installations/${created.body.id}/ping`,
      },
    });
    const integrationLevel = await json(fetch(`${host.url}/v1/integrations/webhook/integration`));
    expect(integrationLevel.body).toMatchObject({
      answeredBy: 'author-webhook',
      integration: 'webhook',
      installation: null,
    });

    // The built-in's own routes know nothing of it.
    expect((await json(host.admin(`/v1/installations/${created.body.id}/deliveries`))).body.items).toEqual([]);
    const rotate = await json(host.admin(`/v1/installations/${created.body.id}/signing-secret`, { method: 'POST' }));
    expect(rotate).toMatchObject({
      status: 404,
      body: { error: { message: `installation "${created.body.id}" is not a webhook installation` } },
    });
    expect(
      (await json(host.admin('/v1/installations?integration=webhook'))).body.items.map(
        (item: { id: string }) => item.id,
      ),
    ).toContain(created.body.id);
    expect(
      (await json(host.admin('/v1/installations?integration=host:webhook'))).body.items.map(
        (item: { id: string }) => item.id,
      ),
    ).not.toContain(created.body.id);
  });

  it(
    'leaves the built-in working under `host:webhook`: both ' + 'receive the same space event, each its own way',
    async () => {
      const author = await install('webhook', { organization: 'acme', target: 'space', space: 'space_acme_docs' });
      const builtin = await install('host:webhook', {
        organization: 'acme',
        target: 'space',
        space: 'space_acme_docs',
      });
      expect(builtin.status).toBe(201);
      expect(builtin.body).toMatchObject({ integration: 'host:webhook', status: 'pending' });
      expect(builtin.body.signingSecret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      const configured = await json(
        host.admin(`/v1/installations/${builtin.body.id}/configuration`, {
          method: 'PATCH',
          body: JSON.stringify({ url: receiverUrl, events: ['space_content_updated'] }),
        }),
      );
      expect(configured.body.status).toBe('active');

      const published = await json(
        host.admin('/v1/events', {
          method: 'POST',
          body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev_names' }),
        }),
      );
      expect(published.status).toBe(202);
      const { eventId, dispatched } = published.body;
      expect(dispatched).toContainEqual(
        expect.objectContaining({ installationId: builtin.body.id, integration: 'host:webhook', queued: true }),
      );
      expect(dispatched).toContainEqual(
        expect.objectContaining({ installationId: author.body.id, integration: 'webhook' }),
      );

      await waitFor(() => received.some((body) => body.includes(eventId)));
      expect(JSON.parse(received.find((body) => body.includes(eventId))!)).toMatchObject({
        eventId,
        installationId: builtin.body.id,
        revisionId: 'rev_names',
      });
      await waitFor(async () => {
        const events = await host.services.listEvents('webhook', { limit: 20 });
        return events.items.some(
          (entry) =>
            entry.installationId === author.body.id &&
            entry.logs.some(
              (line) => line.text === 'author-webhook saw space_content_updated of space_acme_docs at rev_names',
            ),
        );
      });
    },
  );
});

describe('the built-in without a namesake', () => {
  const temp = new TempDirs();
  let root: string;
  let bare: TestHost;
  beforeAll(async () => {
    root = temp.make({
      'hello/platform-manifest.yaml': manifestYaml('hello', 'script: index.js'),
      'hello/index.js': GOOD_SCRIPT,
    });
    bare = await startTestHost({ dirs: [root], cacheDir: path.join(root, '.cache'), autoInstall: false });
  }, 60_000);
  afterAll(async () => {
    await bare?.close();
    temp.cleanup();
  });

  it('answers its old name with 404 naming `host:webhook` when no integration holds `webhook`', async () => {
    for (const route of ['/v1/integrations/webhook', '/v1/integrations/webhook/installations']) {
      const answer = await bare.admin(
        route,
        route.endsWith('installations')
          ? {
              method: 'POST',
              body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
            }
          : {},
      );
      expect(answer.status).toBe(404);
      expect((await answer.json()).error).toEqual({
        code: 'ERR_INTEGRATION_NOT_FOUND',
        message: 'integration "webhook" not found; the host\'s built-in webhook integration is "host:webhook"',
      });
    }
  });

  it('is not taken over by a folder that declares `host:webhook` and appears on a reload', async () => {
    temp.write(root, 'squat/platform-manifest.yaml', manifestYaml('host:webhook', 'script: index.js'));
    temp.write(root, 'squat/index.js', GOOD_SCRIPT);
    await bare.reload();
    expect(
      bare.integrations
        .filter((integration) => integration.name === 'host:webhook')
        .map((integration) => integration.dir),
    ).toEqual(['(built in)']);
    const created = await json(
      bare.admin('/v1/integrations/host:webhook/installations', {
        method: 'POST',
        body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body.signingSecret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  });
});
