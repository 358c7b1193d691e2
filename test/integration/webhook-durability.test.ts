// Durability of the webhook outbox: a host process killed with SIGKILL while one delivery is in
// flight and another is waiting for its retry loses neither; a new dispatcher on the same file
// delivers both (at least once). Only contacts 127.0.0.1.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../host/store/sqlite/database.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../host/store/sqlite/outbox.ts';
import { createWebhookDispatcher } from '../../host/webhooks/webhook-dispatcher.ts';
import { verifySignature } from '../../sandbox-api/webhook-receiver.ts';

const CHILD = fileURLToPath(new URL('./webhook-sigkill-child.ts', import.meta.url));
const SECRET = 'durable-secret';
let dir = '';
let server: http.Server | undefined;
afterEach(async () => {
  if (server) await new Promise<void>((resolve) => (server!.closeAllConnections(), server!.close(() => resolve())));
  rmSync(dir, { recursive: true, force: true });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhook outbox durability', () => {
  it('delivers what was in flight or awaiting a retry when the host was killed with SIGKILL', {
    timeout: 90_000,
  }, async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'webhook-kill-'));
    const dbPath = path.join(dir, 'host.db');
    // /hang swallows its first request (the attempt in flight at the kill); /flaky answers 503 once.
    const received: { path: string; eventId: string; verified: boolean }[] = [];
    let revived = false;
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const raw = Buffer.concat(chunks);
        const verdict = await verifySignature(raw, req.headers['x-platform-signature'] as string, SECRET);
        received.push({ path: req.url ?? '', eventId: JSON.parse(raw.toString()).eventId, verified: verdict.ok });
        if (!revived && req.url === '/hang') return;
        if (!revived && req.url === '/flaky') return res.writeHead(503).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const child = spawn(process.execPath, [CHILD, dbPath, SECRET, `${base}/hang`, `${base}/flaky`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    await waitFor(
      () => received.some((r) => r.path === '/hang') && /attempt evt_kill_1 1 503 pending/.test(out),
      30_000,
    );
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    revived = true;
    const db = openDatabase(dbPath);
    db.exec('PRAGMA busy_timeout = 5000;');
    const outbox = createOutbox(db);
    const [hung, flaky] = (await outbox.listForInstallation('inst_1')).items.reverse();
    expect(hung).toMatchObject({ eventId: 'evt_kill_0', status: 'in_flight', attempts: 0 });
    expect(flaky).toMatchObject({ eventId: 'evt_kill_1', status: 'pending', attempts: 1 });

    const dispatcher = createWebhookDispatcher({
      outbox,
      policyOptions: { allow: ['127.0.0.1'] },
      signingSecretsFor: async (ids) => new Map(ids.map((id) => [id, [SECRET]])),
    });
    await dispatcher.start();
    try {
      await waitFor(
        async () =>
          (await Promise.all([hung.id, flaky.id].map((id) => outbox.get(id)))).every(
            (record) => record?.status === 'succeeded',
          ),
        30_000,
      );
    } finally {
      await dispatcher.stop();
    }
    expect(received.filter((r) => r.eventId === 'evt_kill_0').length).toBeGreaterThanOrEqual(2);
    expect(received.filter((r) => r.eventId === 'evt_kill_1').map((r) => r.path)).toEqual(['/flaky', '/flaky']);
    expect(received.every((r) => r.verified)).toBe(true);
    expect((await outbox.get(flaky.id))?.attemptLog.map((a) => a.statusCode)).toEqual([503, 200]);
    db.close();
  });
});
