// The GitBook-format fixtures (fixtures/gitbook, written for this host against @gitbook/runtime)
// through the real host: a block whose codeblock state round-trips through actions beside a live
// webframe, its fetch handler behind the public endpoint with bytes kept exact, and an analytics
// integration whose fetch_published_script serves a script imported as text from a .raw.js file.
// Every ContentKit output is also validated with an ajv of the test's own against GitBook's spec.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, endpointOf, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectValidAgainstSpec } from '../helpers/gitbook-spec.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/gitbook'] });
});
afterAll(() => host?.close());

async function render(installationId: string, body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  const response = await host.admin(`/v1/installations/${installationId}/render`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** The seed's envelope, as a platform would POST it to the host: multipart `event` and `environment`. */
async function envelope(event: Record<string, unknown>): Promise<Response> {
  const form = new FormData();
  form.append('event', JSON.stringify(event));
  form.append('environment', JSON.stringify({}));
  return fetch(`${host.url}/v1`, { method: 'POST', body: form, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

describe('snippet-preview (a block with a codeblock and a webframe)', () => {
  const context = { type: 'document', theme: 'light', spaceId: 'space_acme_docs', editable: true };

  it('loads from gitbook-manifest.yaml with @gitbook/runtime bundled from node_modules', () => {
    const loaded = host.integrations.find((integration) => integration.name === 'snippet-preview');
    expect(loaded).toMatchObject({ status: 'ready', manifestKind: 'gitbook', errors: [] });
    expect(loaded?.warnings.map((warning) => warning.pointer)).toEqual(['/target', '/blocks/0/markdown']);
  });

  it(
    'renders its initial state: an editable codeblock bound ' + 'to state and a webframe fed by the same binding',
    async () => {
      const installationId = installationOf(host, 'snippet-preview');
      const { status, json } = await render(installationId, { componentId: 'snippet', props: {}, context });
      expect(status).toBe(200);
      expectValidAgainstSpec('ContentKitRenderOutput', json);
      expect(json.state).toEqual({ content: '<p>Hello <b>world</b></p>', edits: 0 });
      const [codeblock, webframe] = json.element.children;
      expect(codeblock).toMatchObject({
        type: 'codeblock',
        content: { $state: 'content' },
        state: 'content',
        syntax: 'html',
        onContentChange: { action: 'snippet.changed' },
      });
      // The frame is served from the integration's content endpoint (its own, not an installation's).
      expect(webframe).toEqual({
        type: 'webframe',
        source: { url: `${host.url}/v1/integrations/snippet-preview/integration/frame` },
        aspectRatio: 16 / 9,
        data: { content: { $state: 'content' } },
      });
      expect(json.element.controls).toEqual([{ label: 'Reset', icon: 'close', onPress: { action: 'snippet.reset' } }]);
    },
  );

  it('round-trips edited code through onContentChange into props and state, and resets', async () => {
    const installationId = installationOf(host, 'snippet-preview');
    const edited = '<h1>Edited</h1>\n<p>twice</p>';
    const changed = await render(installationId, {
      componentId: 'snippet',
      props: {},
      state: { content: edited, edits: 0 },
      action: { action: 'snippet.changed' },
      context,
    });
    expect(changed.status).toBe(200);
    expectValidAgainstSpec('ContentKitRenderOutput', changed.json);
    expect(changed.json.props).toEqual({ content: edited });
    expect(changed.json.state).toEqual({ content: edited, edits: 1 });
    expect(changed.json.element.children[0].footer).toEqual([
      { type: 'text', style: 'italic', children: ['1 edit(s) saved'] },
    ]);

    const again = await render(installationId, {
      componentId: 'snippet',
      props: changed.json.props,
      state: changed.json.state,
      action: { action: 'snippet.changed' },
      context,
    });
    expect(again.json.state).toEqual({ content: edited, edits: 2 });

    const reset = await render(installationId, {
      componentId: 'snippet',
      props: again.json.props,
      state: again.json.state,
      action: { action: 'snippet.reset' },
      context,
    });
    expectValidAgainstSpec('ContentKitRenderOutput', reset.json);
    expect([reset.json.props, reset.json.state]).toEqual([
      { content: '<p>Hello <b>world</b></p>' },
      { content: '<p>Hello <b>world</b></p>', edits: 0 },
    ]);
  });

  it("answers an unknown component with the integration's own 404", async () => {
    const { status, json } = await render(installationOf(host, 'snippet-preview'), { componentId: 'ghost', props: {} });
    expect([status, json]).toEqual([404, { error: 'Component ghost not found' }]);
  });

  it(
    'serves the webframe page (imported with { type: "text" }) from its fetch handler on the integration\'s ' +
      "endpoint and an installation's",
    async () => {
      for (const url of [
        `${host.url}/v1/integrations/snippet-preview/integration/frame`,
        `${endpointOf(host, 'snippet-preview')}/frame`,
      ]) {
        const response = await fetch(url);
        expect(response.status, url).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(await response.text()).toBe(readFileSync('fixtures/gitbook/snippet-preview/src/frame.html', 'utf8'));
      }
    },
  );

  it('gets a request body byte for byte through the envelope, delimiter-like sequences included', async () => {
    const bytes = Buffer.concat([
      randomBytes(4096),
      Buffer.from('\r\n------formdata-sandbox-\r\n--\r\n'),
      randomBytes(100),
    ]);
    const response = await fetch(`${endpointOf(host, 'snippet-preview')}/digest`, {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(await response.json()).toEqual({
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType: 'application/octet-stream',
    });
  });

  it('answers a route it does not have with its ExposableError', async () => {
    const response = await fetch(`${endpointOf(host, 'snippet-preview')}/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: expect.stringMatching(
        /^no route for GET \/v1\/integrations\/snippet-preview\/installations\/inst_\w+\/nothing$/,
      ),
    });
  });
});

describe('page-analytics (fetch_published_script with a .raw.js script)', () => {
  let installationId: string;

  beforeAll(async () => {
    const created = await host.admin('/v1/integrations/page-analytics/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'site', site: 'site_acme' }),
    });
    expect(created.status).toBe(201);
    installationId = (await created.json()).id;
  });

  it("answers with the runtime's no-op script while no tracking ID is set", async () => {
    const response = await envelope({ type: 'fetch_published_script', installationId, siteId: 'site_acme' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/javascript');
    expect(await response.text()).toBe('/** no-op */');
  });

  it('serves the .raw.js text, never run at load, with the configured tracking ID', async () => {
    const configured = await host.admin(`/v1/installations/${installationId}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ tracking_id: 'G-TEST_42' }),
    });
    expect((await configured.json()).status).toBe('active');
    const response = await envelope({ type: 'fetch_published_script', installationId, siteId: 'site_acme' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/javascript');
    expect(response.headers.get('cache-control')).toBe('max-age=604800');
    const raw = readFileSync('fixtures/gitbook/page-analytics/src/tracker.raw.js', 'utf8');
    expect(await response.text()).toBe(
      `/* page-analytics for site site_acme */\n${raw.replace('<TRACKING_ID>', 'G-TEST_42')}`,
    );
  });

  it(
    'is no recipient of a platform event it has no handler for (its 406 is the "no handler" verdict), which is ' +
      'still logged',
    async () => {
      const response = await host.admin('/v1/events', {
        method: 'POST',
        body: JSON.stringify({
          type: 'site_view',
          siteId: 'site_acme',
          visitor: { anonymousId: 'a', userAgent: 'ua', ip: '127.0.0.1', cookies: {} },
          url: 'https://docs.acme.test/',
          referrer: '',
        }),
      });
      expect(response.status).toBe(202);
      const { eventId, dispatched } = await response.json();
      expect(dispatched.filter((entry: { integration?: string }) => entry.integration === 'page-analytics')).toEqual(
        [],
      );
      // The dispatch is over when POST /v1/events answers; reads flush the batched event log first.
      const entry = await host.admin(`/v1/integrations/page-analytics/events/${eventId}`);
      expect(entry.status).toBe(200);
      expect(await entry.json()).toMatchObject({ type: 'site_view', status: 406, installationId });
    },
  );
});
