// The durable webhook path end to end on loopback: file-backed outbox → dispatcher → real HTTP
// receivers. Signatures verify with the receiver helper and with an independent node:crypto
// implementation; a receiver that is down for 3 s gets everything. Only contacts 127.0.0.1.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../../host/store/sqlite/database.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../host/store/sqlite/outbox.ts';
import { type DeliveryRecord, type Outbox } from '../../host/webhooks/outbox.ts';
import { createSigningSecretStore } from '../../host/store/sqlite/signing-secrets.ts';
import { type SigningSecretStore } from '../../host/webhooks/secrets.ts';
import { createWebhookDispatcher, type WebhookDispatcher } from '../../host/webhooks/webhook-dispatcher.ts';
import { planWebhookDeliveries } from '../../host/webhooks/routing.ts';
import { verifySignature } from '../../sandbox-api/webhook-receiver.ts';
import { startReceiver, type RunningReceiver } from '../../fixtures/receivers/receiver.ts';
import type { Installation } from '../../host/installations/model.ts';

let dir: string;
let db: DatabaseSync;
let outbox: Outbox;
let secrets: SigningSecretStore;
let dispatcher: WebhookDispatcher;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'webhook-delivery-'));
  db = openDatabase(path.join(dir, 'host.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
  outbox = createOutbox(db);
  secrets = createSigningSecretStore(db);
  dispatcher = createWebhookDispatcher({
    outbox,
    policyOptions: { allow: ['127.0.0.1'] },
    signingSecretsFor: (ids) => secrets.secretsForMany(ids, Date.now()),
  });
  await dispatcher.start();
});
afterEach(async () => {
  await dispatcher.stop();
  for (const close of closers.splice(0)) await close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An independent verifier of the documented scheme: no code shared with the host or the helper. */
function independentlyVerify(rawBody: Buffer, header: string, secret: string): boolean {
  const parts = header.split(',').map((part) => part.split('='));
  const t = parts.find(([key]) => key === 't')?.[1];
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return parts.filter(([key]) => key === 'v1').some(([, hex]) => timingSafeEqual(Buffer.from(hex, 'hex'), expected));
}

async function rawReceiver(): Promise<{
  url: string;
  requests: { body: Buffer; headers: http.IncomingHttpHeaders }[];
}> {
  const requests: { body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, requests };
}

const webhookOn = (id: string, url: string): Installation => ({
  id,
  integration: 'host:webhook',
  organization: 'org_1',
  target: 'space',
  space: 'space_1',
  status: 'active',
  configuration: { url, events: ['space_content_updated'] },
  createdAt: '2026-01-01T00:00:00Z',
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhook delivery over loopback', () => {
  it('delivers a space_content_updated whose signature verifies with the helper and with node:crypto', async () => {
    const receiver = await rawReceiver();
    const secret = await secrets.create('inst_1');
    const [delivery] = await dispatcher.enqueue(
      planWebhookDeliveries({ type: 'space_content_updated', spaceId: 'space_1', revisionId: 'rev_9' }, 'evt_42', [
        webhookOn('inst_1', receiver.url),
      ]),
    );
    await waitFor(async () => (await outbox.get(delivery.id))?.status === 'succeeded', 30_000);

    const [request] = receiver.requests;
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toEqual({
      eventId: 'evt_42',
      type: 'space_content_updated',
      installationId: 'inst_1',
      spaceId: 'space_1',
      revisionId: 'rev_9',
    });
    const header = String(request.headers['x-platform-signature']);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await verifySignature(request.body, header, secret)).toMatchObject({ ok: true });
    expect(independentlyVerify(request.body, header, secret)).toBe(true);
    expect((await outbox.get(delivery.id))?.attemptLog).toMatchObject([
      { attempt: 1, statusCode: 200, errorKind: null },
    ]);
  });

  it('signs with both secrets during a rotation, so either verifies', async () => {
    const receiver = await rawReceiver();
    const old = await secrets.create('inst_1');
    const current = (await secrets.rotate('inst_1', Date.now())) as string;
    const [delivery] = await dispatcher.enqueue(
      planWebhookDeliveries({ type: 'space_content_updated', spaceId: 'space_1', revisionId: 'r' }, 'evt_rot', [
        webhookOn('inst_1', receiver.url),
      ]),
    );
    await waitFor(async () => (await outbox.get(delivery.id))?.status === 'succeeded', 30_000);
    const { body, headers } = receiver.requests[0];
    const header = String(headers['x-platform-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [old, current]) {
      expect(await verifySignature(body, header, secret)).toMatchObject({ ok: true });
      expect(independentlyVerify(body, header, secret)).toBe(true);
    }
  });

  it('gets everything to a receiver that is down for two attempts and comes back', { timeout: 90_000 }, async () => {
    // Reserve a port, then leave it closed: attempts are refused until the receiver starts.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const secret = await secrets.create('inst_1');
    const url = `http://127.0.0.1:${port}/hooks`;
    const records: DeliveryRecord[] = [];
    for (let i = 0; i < 5; i++) {
      records.push(
        (
          await dispatcher.enqueue(
            planWebhookDeliveries(
              { type: 'space_content_updated', spaceId: 'space_1', revisionId: `rev_${i}` },
              `evt_down_${i}`,
              [webhookOn('inst_1', url)],
            ),
          )
        )[0],
      );
    }
    const processed: string[] = [];
    let receiver: RunningReceiver | undefined;
    // The receiver comes back once every delivery has been refused twice: the third attempt (2 s
    // after the second) or, on a slow machine, the fourth (4 s later) finds it up.
    await waitFor(
      async () =>
        (await Promise.all(records.map((record) => outbox.get(record.id)))).every(
          (record) => (record?.attemptLog.length ?? 0) >= 2,
        ),
      30_000,
    );
    receiver = await startReceiver({ secret, port, onEvent: (event) => void processed.push(String(event.eventId)) });
    closers.push(() => receiver!.close());
    await waitFor(
      async () =>
        (await Promise.all(records.map((record) => outbox.get(record.id)))).every(
          (record) => record?.status === 'succeeded',
        ),
      30_000,
    );

    expect(processed.sort()).toEqual(records.map((record) => record.eventId).sort());
    for (const record of records) {
      const log = (await outbox.get(record.id))!.attemptLog;
      expect(log[0]).toMatchObject({ statusCode: null, errorKind: 'refused' });
      expect(log.at(-1)).toMatchObject({ statusCode: 200 });
      expect(log.length).toBeGreaterThanOrEqual(3);
      expect(log.length).toBeLessThanOrEqual(4);
    }
  });

  it('fails a delivery to a receiver that keeps rejecting and keeps it in the log', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver({ secret: 'not-the-installation-secret' });
    closers.push(() => receiver.close());
    await secrets.create('inst_1');
    const [delivery] = await dispatcher.enqueue(
      planWebhookDeliveries({ type: 'space_content_updated', spaceId: 'space_1', revisionId: 'r' }, 'evt_401', [
        webhookOn('inst_1', receiver.url),
      ]),
    );
    await waitFor(async () => (await outbox.get(delivery.id))?.status === 'failed', 30_000);
    expect((await outbox.listForInstallation('inst_1')).items[0]).toMatchObject({
      id: delivery.id,
      status: 'failed',
      attemptLog: [{ statusCode: 401 }],
    });
  });
});
