// A webhook URL changed while a delivery is retrying: the next attempts go to the URL configured
// when each attempt starts, never to the old one (a URL is changed because the old receiver is
// wrong, gone or compromised, and it must stop receiving signed events at once).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
const servers: http.Server[] = [];
const hits = { old: 0, new: 0 };

async function receiver(name: 'old' | 'new', status: number): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits[name]++;
      res.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

beforeAll(async () => {
  host = await startTestHost({ allowEgress: ['127.0.0.1'] });
});
afterAll(async () => {
  await host?.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('changing a webhook URL while a delivery is retrying', () => {
  it('sends the remaining attempts to the new URL only', async () => {
    const oldUrl = await receiver('old', 503);
    const newUrl = await receiver('new', 200);
    const created = await (
      await host.admin('/v1/integrations/host:webhook/installations', {
        method: 'POST',
        body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
      })
    ).json();
    const configure = (url: string) =>
      host.admin(`/v1/installations/${created.id}/configuration`, {
        method: 'PATCH',
        body: JSON.stringify({ url, events: ['space_content_updated'] }),
      });
    expect((await configure(oldUrl)).status).toBe(200);
    await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'r1' }),
    });
    await waitFor(() => hits.old >= 1, 10_000);
    expect((await configure(newUrl)).status).toBe(200);
    // Attempts made before the change went to the old URL; none after it may.
    const oldBeforeChange = hits.old;
    let status = '';
    await waitFor(() => {
      void host
        .admin(`/v1/installations/${created.id}/deliveries`)
        .then(async (response) => (status = (await response.json()).items[0]?.status ?? ''));
      return status === 'succeeded';
    }, 15_000);
    expect(hits).toEqual({ old: oldBeforeChange, new: 1 });
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
