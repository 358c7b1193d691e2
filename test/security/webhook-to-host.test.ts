// With `--allow-egress 127.0.0.1` (how local receivers are allowed), a webhook URL pointing at the
// host's own port would make the trusted delivery code call the host's public endpoints and API.
// The host's own port is never a delivery destination on a non-public address: refused when the
// URL is configured (an address) and again when a name resolves to it at connect time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ allowEgress: ['127.0.0.1', '::1', 'localhost'] });
});
afterAll(() => host?.close());

async function webhookInstallation(): Promise<string> {
  const created = await host.admin('/v1/integrations/host:webhook/installations', {
    method: 'POST',
    body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
  });
  expect(created.status).toBe(201);
  return (await created.json()).id;
}

const configure = (id: string, url: string) =>
  host.admin(`/v1/installations/${id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify({ url, events: ['space_content_updated'] }),
  });

describe('webhooks aimed at the host itself', () => {
  it.each(['127.0.0.1', '[::1]'])(
    'refuses to configure http://%s:<host port> even though loopback is allowed',
    async (address) => {
      const id = await webhookInstallation();
      const answer = await configure(id, `http://${address}:${host.port}/v1/events`);
      expect(answer.status).toBe(422);
      expect(JSON.stringify(await answer.json())).toMatch(/\/url.*is this host itself/);
    },
  );

  it('refuses at connect time a name that resolves to the host, and the host receives nothing', async () => {
    const id = await webhookInstallation();
    const accepted = await configure(id, `http://localhost:${host.port}/v1/integrations/hello/installations/x`);
    expect(accepted.status).toBe(200);
    const requestsBefore = host.logs.filter((line) => line.includes('/v1/integrations/hello/installations/x')).length;
    const published = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'r1' }),
    });
    expect(published.status).toBe(202);
    let deliveries: { status: string; attempts: { error?: { kind: string; message: string } }[] }[] = [];
    await waitFor(() => {
      void host
        .admin(`/v1/installations/${id}/deliveries`)
        .then(async (response) => (deliveries = (await response.json()).items));
      return deliveries.length === 1 && deliveries[0].status === 'failed';
    }, 15_000);
    expect(deliveries[0].attempts[0].error).toEqual({
      kind: 'blocked',
      message: expect.stringMatching(/is this host itself/),
    });
    expect(host.logs.filter((line) => line.includes('/v1/integrations/hello/installations/x')).length).toBe(
      requestsBefore,
    );
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
