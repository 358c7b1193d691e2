// Several hosts on one PostgreSQL (a throwaway server started here), each in its own process:
// an OAuth state consumed on A is refused on B; a configuration change and an uninstall on A show
// on B within a second (cached records and revoked tokens included); a delivery queued through A
// and cut off by SIGKILL mid-attempt is delivered once by B when A's lease ends; 5,000 events
// published through both hosts reach the receiver exactly once each. Only 127.0.0.1 is contacted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConnectTickets } from '../../host/installations/connect-ticket.ts';
import { deriveInstallationToken, TOKEN_SECRET_META_KEY } from '../../host/installations/tokens.ts';
import { startHostProcess, type HostProcess } from '../helpers/host-process.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../helpers/postgres.ts';

let server: TestPostgres | undefined;
const hosts: HostProcess[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (postgresUnavailable === undefined) server = await startPostgres();
}, 60_000);
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.kill('SIGKILL')));
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await server?.stop();
});

async function twoHosts(
  options: Record<string, unknown> = {},
  startSecond = true,
): Promise<{ url: string; a: HostProcess; b?: HostProcess }> {
  const url = await server!.createDatabase();
  const common = {
    storeUrl: url,
    dirs: ['test/fixtures/env-echo'],
    autoInstall: false,
    allowEgress: ['127.0.0.1'],
    ...options,
  };
  const a = await startHostProcess(common);
  hosts.push(a);
  if (!startSecond) return { url, a };
  const b = await startHostProcess(common);
  hosts.push(b);
  return { url, a, b };
}

/**
 * The installation's API token and a connect ticket, derived from the host secret every host shares, as the hosts
 * derive them.
 */
async function credentialsOf(url: string, installationId: string): Promise<{ token: string; ticket: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT value FROM meta WHERE key = $1', [TOKEN_SECRET_META_KEY]);
    const secret = rows[0].value as string;
    return {
      token: deriveInstallationToken(secret, installationId),
      ticket: createConnectTickets({ secret, now: Date.now }).mint(installationId),
    };
  } finally {
    await client.end();
  }
}

async function json(response: Promise<Response>): Promise<{ status: number; body: any }> {
  const answer = await response;
  const text = await answer.text();
  return { status: answer.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** A receiver that records every request's eventId; `hold` leaves requests unanswered while it returns true. */
async function receiver(
  hold: (eventId: string) => boolean = () => false,
): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const eventId = String(JSON.parse(Buffer.concat(chunks).toString()).eventId);
      received.push(eventId);
      if (hold(eventId)) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

async function installWebhook(host: HostProcess, url: string): Promise<string> {
  const created = await json(
    host.admin('/v1/integrations/host:webhook/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    }),
  );
  expect(created.status).toBe(201);
  const configured = await json(
    host.admin(`/v1/installations/${created.body.id}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ url, events: ['space_content_updated'] }),
    }),
  );
  expect(configured.body.status).toBe('active');
  return created.body.id;
}

const publish = (host: HostProcess, revisionId: string) =>
  json(
    host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId }),
    }),
  );

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

describe.skipIf(postgresUnavailable !== undefined)('several hosts on one PostgreSQL', () => {
  it('refuses on B an OAuth state consumed on A', { timeout: 120_000 }, async () => {
    const { url, a, b } = await twoHosts();
    const created = await json(
      a.admin('/v1/integrations/env-echo/installations', {
        method: 'POST',
        body: JSON.stringify({ organization: 'acme', target: 'organization' }),
      }),
    );
    expect(created.status).toBe(201);
    const { token, ticket } = await credentialsOf(url, created.body.id);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const issued = await json(
      fetch(`${a.url}/v1/installation/oauth/state`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ ticket }),
      }),
    );
    expect(issued.status).toBe(200);
    const consume = (host: HostProcess) =>
      json(
        fetch(`${host.url}/v1/installation/oauth/state/consume`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ state: issued.body.state }),
        }),
      );
    expect((await consume(a)).status).toBe(204);
    const again = await consume(b!);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({
      code: 'ERR_OAUTH_STATE_INVALID',
      message: expect.stringMatching(/already used/),
    });
  });

  it('shows a configuration change and an uninstall made on A on B within a second', { timeout: 120_000 }, async () => {
    const { url, a, b } = await twoHosts();
    const id = await installWebhook(a, 'http://127.0.0.1:9/first');
    const { token, ticket } = await credentialsOf(url, id);
    // B reads (and caches) the installation and resolves (and caches) its token first.
    expect((await json(b!.admin(`/v1/installations/${id}`))).body.configuration.url).toBe('http://127.0.0.1:9/first');
    const self = () =>
      json(
        fetch(`${b!.url}/v1/installation/oauth/state`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ticket }),
        }),
      );
    expect((await self()).status).toBe(200);

    expect(
      (
        await json(
          a.admin(`/v1/installations/${id}/configuration`, {
            method: 'PATCH',
            body: JSON.stringify({ url: 'http://127.0.0.1:9/second' }),
          }),
        )
      ).status,
    ).toBe(200);
    const seen = await until(
      async () =>
        (await json(b!.admin(`/v1/installations/${id}`))).body.configuration.url === 'http://127.0.0.1:9/second',
      1_000,
      'the change on B',
    );
    expect(seen).toBeLessThan(1_000);

    expect((await a.admin(`/v1/installations/${id}`, { method: 'DELETE' })).status).toBe(204);
    const revoked = await until(async () => (await self()).status === 401, 1_000, 'the revoked token on B');
    expect(revoked).toBeLessThan(1_000);
    // The token and the installation are cached apart on B: each is dropped by the notification.
    const gone = await until(
      async () => (await json(b!.admin(`/v1/installations/${id}`))).status === 404,
      1_000,
      'the uninstall on B',
    );
    expect(gone).toBeLessThan(1_000);
  });

  it('delivers once through B what A was attempting when it was killed with SIGKILL', {
    timeout: 120_000,
  }, async () => {
    let revived = false;
    const hook = await receiver(() => !revived);
    const options = { webhookLeaseMs: 2_000 };
    const { url, a } = await twoHosts(options, false);
    const id = await installWebhook(a, hook.url);
    const published = await publish(a, 'r-kill');
    expect(published.status).toBe(202);
    const [queued] = published.body.dispatched;
    await until(() => hook.received.length === 1, 10_000, 'the first attempt');
    expect(await a.kill('SIGKILL')).toBe('SIGKILL');
    revived = true;

    // B on the same database takes the delivery over once A's lease has ended.
    const b = await startHostProcess({
      storeUrl: url,
      dirs: ['test/fixtures/env-echo'],
      autoInstall: false,
      allowEgress: ['127.0.0.1'],
      ...options,
    });
    hosts.push(b);
    const deliveries = async () => (await json(b.admin(`/v1/installations/${id}/deliveries`))).body.items;
    await until(async () => (await deliveries())[0]?.status === 'succeeded', 30_000, 'the delivery by B');
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      id: queued.deliveryId,
      attemptCount: 1,
      attempts: [{ attempt: 1, statusCode: 200 }],
    });
    // Once by B, plus the attempt cut off by the kill; nothing more arrives later.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hook.received).toEqual([published.body.eventId, published.body.eventId]);
  });

  it('rides out lost database connections without losing an accepted event or a cached change', {
    timeout: 120_000,
  }, async () => {
    const hook = await receiver();
    const { url, a, b } = await twoHosts();
    const id = await installWebhook(a, hook.url);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    closers.push(() => admin.end());
    // Every connection of both hosts (pool and change listener) is cut, three times, under load.
    const cut = () =>
      admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> ' +
          'pg_backend_pid()',
      );
    const accepted: string[] = [];
    const load = (async () => {
      for (let i = 0; i < 300; i++) {
        const answer = await publish(i % 2 === 0 ? a : b!, `r${i}`);
        expect(answer.status).toBe(202);
        accepted.push(answer.body.eventId);
      }
    })();
    for (let round = 0; round < 3; round++) {
      await until(() => accepted.length >= 50 * (round + 1), 60_000, `${50 * (round + 1)} accepted events`);
      await cut();
    }
    await load;
    await until(
      () => accepted.every((eventId) => hook.received.includes(eventId)),
      60_000,
      'every accepted event at the receiver',
    );
    // The change listeners reconnected: a change on A still reaches B's cache.
    await cut();
    expect((await json(b!.admin(`/v1/installations/${id}`))).body.configuration.events).toEqual([
      'space_content_updated',
    ]);
    await json(
      a.admin(`/v1/installations/${id}/configuration`, { method: 'PATCH', body: JSON.stringify({ events: [] }) }),
    );
    await until(
      async () => (await json(b!.admin(`/v1/installations/${id}`))).body.status === 'pending',
      5_000,
      'the change on B after reconnecting',
    );
  });

  it('delivers 5,000 events published through both hosts exactly once each', { timeout: 300_000 }, async () => {
    const hook = await receiver();
    const { a, b } = await twoHosts();
    await installWebhook(a, hook.url);
    const accepted: string[] = [];
    const hostsInTurn = [a, b!];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < 5_000; i = next++) {
        const answer = await publish(hostsInTurn[i % 2], `r${i}`);
        expect(answer.status).toBe(202);
        expect(answer.body.dispatched).toHaveLength(1);
        accepted.push(answer.body.eventId);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(new Set(accepted).size).toBe(5_000);
    await until(() => new Set(hook.received).size === 5_000, 240_000, 'every event at the receiver');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(hook.received).toHaveLength(5_000);
    expect(new Set(hook.received)).toEqual(new Set(accepted));
  });
});
