// What an operator runs the host with: GET /metrics parses as Prometheus text and its counters
// move with traffic, a crashed worker and a failed delivery; GET /ready answers 200 only while the
// store and workers are up; --log-format json writes one JSON object per line; SIGTERM under load
// loses no accepted event; an unreachable or malformed --store is one line naming the fix.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../host/common/logger.ts';
import { ADMIN_TOKEN, endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { startHostProcess } from '../helpers/host-process.ts';
import { freePort } from '../helpers/postgres.ts';

const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));
const CLI = fileURLToPath(new URL('../../host/cli.ts', import.meta.url));
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * Parses the Prometheus text format strictly enough to fail on anything malformed: sample name{labels} → value (NaN
 * and Inf in any case, as Prometheus reads them).
 */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(meta[3]);
        typed.add(meta[2]);
      }
      continue;
    }
    const sample = new RegExp(
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.source +
        /(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?/.source +
        / ([-+]?(?:[0-9.eE+-]+|[Nn][Aa][Nn]|[Ii][Nn][Ff]))$/.source,
    ).exec(line);
    if (!sample) throw new Error(`not a Prometheus sample line: ${line}`);
    const family = sample[1].replace(/_(bucket|sum|count|total)$/, '');
    expect(
      [...typed].some(
        (name) => name === sample[1] || name === family || `${name}_total` === sample[1] || sample[1].startsWith(name),
      ),
    ).toBe(true);
    samples.set(`${sample[1]}${sample[2] ?? ''}`, Number(sample[3]));
  }
  return samples;
}

async function scrape(host: TestHost): Promise<Map<string, number>> {
  const response = await host.admin('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

async function receiver(status: number): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(String(JSON.parse(Buffer.concat(chunks).toString()).eventId));
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

async function installWebhook(
  admin: (path: string, init?: RequestInit) => Promise<Response>,
  url: string,
): Promise<string> {
  const created = await (
    await admin('/v1/integrations/host:webhook/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    })
  ).json();
  const patched = await admin(`/v1/installations/${created.id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify({ url, events: ['space_content_updated'] }),
  });
  expect(patched.status).toBe(200);
  return created.id;
}

describe('metrics and readiness', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'], allowEgress: ['127.0.0.1'] });
  });
  afterAll(() => host?.close());

  it('answers /ready 200 with its checks while the store and the workers are up', async () => {
    const response = await fetch(`${host.url}/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', workers: expect.stringMatching(/^(\d+) of \1 sandbox workers up$/), host: 'serving' },
    });
  });

  it('keeps /metrics behind the admin token', async () => {
    expect((await fetch(`${host.url}/metrics`)).status).toBe(401);
  });

  it('counts dispatches with their latency, a crashed worker and a failed delivery', { timeout: 60_000 }, async () => {
    const before = await scrape(host);
    for (let i = 0; i < 3; i++) expect((await fetch(endpointOf(host, 'hello'), { method: 'POST' })).status).toBe(200);
    const dispatched = 'integration_host_dispatches_total{integration="hello",type="fetch",status="200"}';
    const timed = 'integration_host_dispatch_duration_seconds_count{integration="hello",type="fetch"}';
    let after = await scrape(host);
    expect((after.get(dispatched) ?? 0) - (before.get(dispatched) ?? 0)).toBe(3);
    expect((after.get(timed) ?? 0) - (before.get(timed) ?? 0)).toBe(3);
    expect(after.get('integration_host_isolate_starts_total{integration="hello"}')).toBeGreaterThanOrEqual(1);

    // A worker dies (as V8 does on a fatal error): restarted and counted.
    const worker = host.supervisor.workerOf('counter')!;
    const pid = host.supervisor.workerPids()[worker];
    process.kill(pid, 'SIGKILL');
    await waitFor(
      () =>
        host.supervisor.workerPids()[worker] !== pid &&
        host.supervisor.workersUp().up === host.supervisor.workersUp().total,
      10_000,
    );
    after = await scrape(host);
    expect(
      after.get('integration_host_worker_restarts_total')! -
        (before.get('integration_host_worker_restarts_total') ?? 0),
    ).toBe(1);

    // A receiver that answers 410: the delivery fails at once, counted as failed.
    const gone = await receiver(410);
    await installWebhook(host.admin, gone.url);
    const failedBefore = after.get('integration_host_webhook_attempts_total{result="failed"}') ?? 0;
    expect(
      (
        await host.admin('/v1/events', {
          method: 'POST',
          body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'r' }),
        })
      ).status,
    ).toBe(202);
    await waitFor(
      async () =>
        ((await scrape(host)).get('integration_host_webhook_attempts_total{result="failed"}') ?? 0) ===
        failedBefore + 1,
      10_000,
    );
    after = await scrape(host);
    expect(after.get('integration_host_outbox_depth{status="pending"}')).toBe(0);
    // The store counts its own traffic: the event queued, claimed and settled in between took some.
    const trips = 'integration_host_store_round_trips_total';
    expect(after.get(trips)! - before.get(trips)!).toBeGreaterThanOrEqual(3);
    expect(after.get('integration_host_store_statements_total')).toBeGreaterThanOrEqual(after.get(trips)!);
    // The setup events of the installations made at start were owed and delivered (no handler counts as delivered).
    expect(after.get('integration_host_owed_event_attempts_total{result="delivered"}')).toBeGreaterThanOrEqual(1);
    expect(after.has('integration_host_owed_event_attempts_total{result="failed"}')).toBe(true);
    expect(after.has('integration_host_owed_events{status="pending"}')).toBe(true);
    expect(after.has('integration_host_process_cpu_seconds_total')).toBe(true);
  });
});

describe('JSON logs', () => {
  it('writes one JSON object per line with level, time and message', () => {
    const lines: string[] = [];
    const log = createJsonLogger({ write: (line: string) => lines.push(line) });
    log.info('listening on http://127.0.0.1:8787');
    log.warn('a "quoted"\nmessage');
    const records = lines
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'listening on http://127.0.0.1:8787',
        pid: process.pid,
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
      expect.objectContaining({ level: 'warn', msg: 'a "quoted"\nmessage' }),
    ]);
  });

  it('makes `npm run host -- --log-format json` print only JSON lines', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'json-logs-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const { spawn } = await import('node:child_process');
    const child = spawn(
      NODE,
      [
        '--no-node-snapshot',
        CLI,
        'host',
        '--port',
        String(port),
        '--data',
        path.join(dir, 'host.db'),
        '--dir',
        'test/fixtures/env-echo',
        '--log-format',
        'json',
        '--admin-token',
        ADMIN_TOKEN,
        '--workers',
        '1',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    closers.push(async () => (child.kill('SIGKILL'), exited));
    await waitFor(() => out.includes('listening on'), 30_000);
    child.kill('SIGTERM');
    await exited;
    const lines = out.trim().split('\n');
    const records = lines.map((line) => JSON.parse(line));
    expect(records.map((record) => record.msg)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^store: sqlite /),
        `listening on http://127.0.0.1:${port}`,
        'SIGTERM: shutting down (finishing requests in progress for up to 10 s)',
      ]),
    );
  });
});

describe('graceful shutdown', () => {
  it('loses no accepted event when SIGTERM arrives under load', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sigterm-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const dataPath = path.join(dir, 'host.db');
    const hook = await receiver(200);
    const first = await startHostProcess({
      dataPath,
      dirs: ['test/fixtures/env-echo'],
      autoInstall: false,
      allowEgress: ['127.0.0.1'],
    });
    closers.push(() => first.kill('SIGKILL'));
    await installWebhook(first.admin, hook.url);

    const accepted: string[] = [];
    let refused = 0;
    let stop = false;
    const load = async () => {
      for (let i = 0; !stop; i++) {
        try {
          const response = await first.admin('/v1/events', {
            method: 'POST',
            body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: `r${i}` }),
          });
          if (response.status === 202) accepted.push((await response.json()).eventId);
          else refused++;
        } catch {
          // Connection refused or closed: the host is gone; nothing was accepted.
          stop = true;
        }
      }
    };
    const running = Promise.all(Array.from({ length: 8 }, load));
    await waitFor(() => accepted.length >= 200, 30_000);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    stop = true;
    await running;
    expect(refused).toBe(0);
    expect(accepted.length).toBeGreaterThanOrEqual(200);

    // A new host on the same file sends whatever the first one had not: every accepted event arrives.
    const second = await startTestHost({
      dataPath,
      dirs: ['test/fixtures/env-echo'],
      autoInstall: false,
      allowEgress: ['127.0.0.1'],
    });
    closers.push(() => second.close());
    await waitFor(() => accepted.every((eventId) => hook.received.includes(eventId)), 30_000);
  });
});

describe('store errors at startup', () => {
  const host = (...args: string[]) =>
    spawnSync(NODE, ['--no-node-snapshot', CLI, 'host', '--port', '0', '--dir', 'test/fixtures/env-echo', ...args], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, DATABASE_URL: '' },
    });

  it('names the fix in one line when the database cannot be reached', async () => {
    const port = await freePort();
    const result = host('--store', `postgres://postgres@127.0.0.1:${port}/host`);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `error: cannot reach PostgreSQL at 127.0.0.1:${port} (connection refused): is the server running and ` +
        `listening there? Check --store / DATABASE_URL`,
    ]);
  });

  it('names the fix in one line when --store is not a postgres URL', () => {
    const result = host('--store', 'mysql://root:secret@127.0.0.1/host');
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'error: --store: unsupported scheme "mysql:"; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE ' +
        '(omit --store for the SQLite default, or use --data FILE)',
    ]);
    expect(result.stderr).not.toContain('secret');
  });
});
