// Durability through the real `npm run host` process: a webhook delivery that is in flight when
// the host is killed with SIGKILL is delivered after a restart on the same file store (at least
// once, nothing lost), and the delivery log of the new process shows it succeeded.
import { describe, it, expect, afterAll } from 'vitest';
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

const ADMIN = 'sigkill-admin-token-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'ih-sigkill-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function startHostProcess(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '--no-node-snapshot',
      'host/cli.ts',
      'host',
      '--port',
      '0',
      '--data',
      join(dataDir, 'host.db'),
      '--allow-egress',
      '127.0.0.1',
      '--no-auto-install',
      '--workers',
      '2',
    ],
    {
      env: { ...process.env, HOST_ADMIN_TOKEN: ADMIN },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`host exited ${code}:\n${out}`)));
  });
  return { child, url };
}

function admin(base: string, path: string, body?: object, method = body ? 'POST' : 'GET'): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

describe('webhook delivery across a SIGKILL of the host', () => {
  it('delivers an in-flight delivery after the host restarts on the same file store', async () => {
    let hang = true;
    const bodies: string[] = [];
    let firstArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString());
        firstArrived();
        // While `hang` is set the receiver never answers: the attempt stays in flight.
        if (!hang) res.writeHead(200).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    try {
      const first = await startHostProcess();
      const installation = await (
        await admin(first.url, '/v1/integrations/host:webhook/installations', {
          organization: 'acme',
          target: 'space',
          space: 'space_acme_docs',
        })
      ).json();
      const configured = await admin(
        first.url,
        `/v1/installations/${installation.id}/configuration`,
        { url: receiverUrl, events: ['space_content_updated'] },
        'PATCH',
      );
      expect((await configured.json()).status).toBe('active');
      const { eventId } = await (
        await admin(first.url, '/v1/events', {
          type: 'space_content_updated',
          spaceId: 'space_acme_docs',
          revisionId: 'rev_kill',
        })
      ).json();

      await arrived;
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));
      hang = false;

      const second = await startHostProcess();
      const deadline = Date.now() + 60_000;
      let items: { eventId: string; status: string }[] = [];
      while (Date.now() < deadline) {
        items = (await (await admin(second.url, `/v1/installations/${installation.id}/deliveries`)).json()).items;
        if (items.some((item) => item.eventId === eventId && item.status === 'succeeded')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(items.find((item) => item.eventId === eventId)?.status).toBe('succeeded');
      expect(bodies.filter((body) => body.includes(eventId)).length).toBeGreaterThanOrEqual(2);
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  }, 200_000);
});
