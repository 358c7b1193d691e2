// A request can be followed through the host: its `x-request-id` is in its access-log line and in
// the event-log entry of every dispatch it caused (setup events after the answer included), the
// live stream delivers that entry as it is written, a delivered webhook writes a log line per
// attempt, and closing the host ends a stream cleanly.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost, ADMIN_TOKEN } from '../helpers/host.ts';

let host: TestHost;
let receiver: http.Server;
let receiverUrl = '';

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks?token=do-not-log`;
  host = await startTestHost({ dirs: ['fixtures/integrations'], allowEgress: ['127.0.0.1'] });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function openStream(path: string) {
  const response = await fetch(`${host.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const state = { text: '', done: false };
  const pump = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) break;
      state.text += decoder.decode(chunk.value, { stream: true });
    }
    state.done = true;
  })();
  // Setup events of the dev installations may still be arriving: the tests follow fetch events.
  const entries = () =>
    [...state.text.matchAll(/^event: dispatch\ndata: (.*)\n\n/gm)]
      .map((match) => JSON.parse(match[1]))
      .filter((entry) => entry.type === 'fetch');
  return { state, entries, pump, cancel: () => reader.cancel() };
}

describe('request ids and the live event log', () => {
  it('ties a public request to its access-log line, its event-log entry and its stream message', async () => {
    const stream = await openStream('/v1/integrations/hello/events/stream');
    await waitFor(() => stream.state.text.includes(': following hello'));
    const answer = await fetch(endpointOf(host, 'hello'), { method: 'POST' });
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get('x-request-id')!;
    await waitFor(() => stream.entries().length === 1);
    const [streamed] = stream.entries();
    expect(streamed.requestId).toBe(requestId);
    expect(streamed).toEqual(await (await host.admin(`/v1/integrations/hello/events/${streamed.eventId}`)).json());
    expect(
      host.logs.some(
        (line) =>
          line.startsWith('info POST /v1/integrations/hello/installations/') &&
          line.endsWith(` 200 ${line.match(/ (\d+)ms /)?.[1]}ms req=${requestId}`),
      ),
    ).toBe(true);
    await stream.cancel();
  });

  it('gives setup events dispatched after the answer the id of the request that caused them', async () => {
    const created = await host.admin('/v1/integrations/counter/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    });
    expect(created.status).toBe(201);
    const requestId = created.headers.get('x-request-id')!;
    const id = (await created.json()).id;
    let mine: { type: string; requestId?: string }[] = [];
    const deadline = Date.now() + 10_000;
    while (mine.length < 2 && Date.now() < deadline) {
      mine = (await (await host.admin('/v1/integrations/counter/events')).json()).items.filter(
        (item: { installationId: string }) => item.installationId === id,
      );
      if (mine.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(mine.map((item) => item.type).sort()).toEqual(['installation_setup', 'space_installation_setup']);
    for (const item of mine) expect(item.requestId).toBe(requestId);
  });

  it('follows one installation only with ?installation=', async () => {
    const other = await host.admin('/v1/integrations/hello/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    });
    const otherView = await other.json();
    const stream = await openStream(`/v1/integrations/hello/events/stream?installation=${otherView.id}`);
    await waitFor(() => stream.state.text.includes(': following'));
    await fetch(endpointOf(host, 'hello'), { method: 'POST' });
    const mine = await fetch(otherView.urls.publicEndpoint, { method: 'POST' });
    await waitFor(() => stream.entries().length >= 1);
    expect(stream.entries().map((entry) => entry.requestId)).toEqual([mine.headers.get('x-request-id')]);
    await stream.cancel();
  });

  it('writes one host-log line for a delivered webhook attempt, without the URL path or query', async () => {
    const created = await host.admin('/v1/integrations/host:webhook/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    });
    const id = (await created.json()).id;
    const configured = await host.admin(`/v1/installations/${id}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ url: receiverUrl, events: ['space_content_updated'] }),
    });
    expect(configured.status).toBe(200);
    const published = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'r1' }),
    });
    const { eventId } = await published.json();
    await waitFor(() => host.logs.some((line) => line.includes(eventId) && line.includes('delivered')), 10_000);
    const line = host.logs.find((candidate) => candidate.includes(eventId) && candidate.includes('delivered'))!;
    expect(line).toMatch(
      new RegExp(
        `^info webhook dlv_\\S+ attempt 1 to http://127\\.0\\.0\\.1:\\d+: HTTP 200 in \\d+ ms; delivered ` +
          `\\(installation ${id}, space_content_updated ${eventId}\\)$`,
      ),
    );
    expect(host.logs.join('\n')).not.toContain('do-not-log');
  });

  it('ends a stream cleanly when the host closes', async () => {
    const stream = await openStream('/v1/integrations/counter/events/stream');
    await waitFor(() => stream.state.text.includes(': following counter'));
    await host.close();
    await waitFor(() => stream.state.done);
    await stream.pump;
    host = undefined as unknown as TestHost;
  });
});
