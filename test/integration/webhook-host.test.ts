// The built-in webhook integration through the real host: installed on a space and a site,
// configured (422 for events that do not fit the target or a forbidden URL), receiving signed
// events from POST /v1/events, with a delivery log, redelivery and secret rotation.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { verifySignature } from '../../sandbox-api/webhook-receiver.ts';

interface Received {
  signature: string;
  body: string;
  contentType: string;
}

let host: TestHost;
let receiver: http.Server;
let receiverUrl = '';
const received: Received[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        signature: String(req.headers['x-platform-signature']),
        body: Buffer.concat(chunks).toString('utf8'),
        contentType: String(req.headers['content-type']),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  host = await startTestHost({ allowEgress: ['127.0.0.1'] });
});
afterAll(async () => {
  await host?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function install(body: object): Promise<Response> {
  return host.admin('/v1/integrations/host:webhook/installations', { method: 'POST', body: JSON.stringify(body) });
}

async function configure(id: string, patch: object): Promise<Response> {
  return host.admin(`/v1/installations/${id}/configuration`, { method: 'PATCH', body: JSON.stringify(patch) });
}

/** An implementation of the signing scheme that shares no code with the host. */
function independentlyValid(header: string, body: string, secret: string): boolean {
  const t = header.match(/t=(\d+)/)?.[1];
  const signatures = [...header.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]);
  return t !== undefined && signatures.includes(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
}

describe('built-in webhook integration', () => {
  it('is listed with the others and refuses organization installations', async () => {
    const { items } = await (await host.admin('/v1/integrations')).json();
    expect(items).toContainEqual(expect.objectContaining({ name: 'host:webhook', status: 'ready' }));
    const response = await install({ organization: 'acme', target: 'organization' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/space or site only/);
  });

  it('delivers a space_content_updated event signed with the secret returned once at installation', async () => {
    const created = await install({ organization: 'acme', target: 'space', space: 'space_acme_docs' });
    expect(created.status).toBe(201);
    const installation = await created.json();
    expect(installation.status).toBe('pending');
    expect(installation.signingSecret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const secret: string = installation.signingSecret;
    expect(JSON.stringify(await (await host.admin(`/v1/installations/${installation.id}`)).json())).not.toContain(
      secret,
    );

    const wrongEvent = await configure(installation.id, { url: receiverUrl, events: ['site_view'] });
    expect(wrongEvent.status).toBe(422);
    expect(JSON.stringify(await wrongEvent.json())).toMatch(/\/events\/0.*not a space event/);

    const configured = await configure(installation.id, { url: receiverUrl, events: ['space_content_updated'] });
    expect(configured.status).toBe(200);
    expect((await configured.json()).status).toBe('active');

    const published = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev_7' }),
    });
    expect(published.status).toBe(202);
    const { eventId, dispatched } = await published.json();
    expect(dispatched).toContainEqual(
      expect.objectContaining({ installationId: installation.id, integration: 'host:webhook', queued: true }),
    );

    await waitFor(() => received.some((r) => r.body.includes(eventId)));
    const delivery = received.find((r) => r.body.includes(eventId))!;
    expect(delivery.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(delivery.body)).toEqual({
      eventId,
      type: 'space_content_updated',
      spaceId: 'space_acme_docs',
      installationId: installation.id,
      revisionId: 'rev_7',
    });
    expect(delivery.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await verifySignature(delivery.body, delivery.signature, secret)).toMatchObject({ ok: true });
    expect(independentlyValid(delivery.signature, delivery.body, secret)).toBe(true);

    const log = await (await host.admin(`/v1/installations/${installation.id}/deliveries`)).json();
    expect(log.items[0]).toMatchObject({ eventId, status: 'succeeded' });
    expect(log.items[0].attempts).toHaveLength(1);

    const again = await host.admin(`/v1/deliveries/${log.items[0].id}/redeliver`, { method: 'POST' });
    expect(again.status).toBe(202);
    await waitFor(() => received.filter((r) => r.body.includes(eventId)).length === 2);

    const rotated = await (
      await host.admin(`/v1/installations/${installation.id}/signing-secret`, { method: 'POST' })
    ).json();
    expect(rotated.signingSecret).not.toBe(secret);
    await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev_8' }),
    });
    await waitFor(() => received.some((r) => r.body.includes('rev_8')));
    const rotatedDelivery = received.find((r) => r.body.includes('rev_8'))!;
    // During the rotation window both secrets sign: two v1 entries.
    expect(rotatedDelivery.signature.match(/v1=/g)).toHaveLength(2);
    expect(independentlyValid(rotatedDelivery.signature, rotatedDelivery.body, rotated.signingSecret)).toBe(true);
    expect(independentlyValid(rotatedDelivery.signature, rotatedDelivery.body, secret)).toBe(true);
  });

  it('refuses a URL the egress policy forbids when it is configured', async () => {
    const installation = await (await install({ organization: 'acme', target: 'site', site: 'site_acme' })).json();
    const metadata = await configure(installation.id, { url: 'https://169.254.169.254/latest', events: ['site_view'] });
    expect(metadata.status).toBe(422);
    expect(JSON.stringify(await metadata.json())).toMatch(/\/url.*link-local/);
    const plainHttp = await configure(installation.id, { url: 'http://example.com/hook', events: ['page_feedback'] });
    expect(plainHttp.status).toBe(422);
    expect(JSON.stringify(await plainHttp.json())).toMatch(/must use https/);
  });

  it('does not deliver events of another space or of unselected types', async () => {
    const before = received.length;
    const published = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_internal', revisionId: 'r' }),
    });
    expect(published.status).toBe(202);
    // Deliveries are in the outbox before the answer: none queued means none will ever be sent.
    const { dispatched } = await published.json();
    expect(dispatched.filter((entry: { deliveryId?: string }) => entry.deliveryId !== undefined)).toEqual([]);
    expect(received.length).toBe(before);
  });
});
