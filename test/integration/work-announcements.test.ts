// Hosts on one PostgreSQL learn of work another host queued and cannot start by its announcement
// (LISTEN/NOTIFY), not by polling: with every queue's poll set to a minute, B delivers the webhooks A
// queued while its slots for the receiver were full, and runs the task and the owed setup event A
// queued while its runners were stopped. Only 127.0.0.1 is contacted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callApi, integrationToken } from '../helpers/platform-api.ts';
import { startTestHost, waitFor, type TestHost, type TestHostOptions } from '../helpers/host.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../helpers/postgres.ts';

let server: TestPostgres | undefined;
const hosts: TestHost[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (postgresUnavailable === undefined) server = await startPostgres();
}, 60_000);
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});
afterAll(async () => {
  await server?.stop();
});

/** Two hosts on a new database, neither looking at its queues unprompted for a minute. */
async function twoHosts(dirs: string[]): Promise<[TestHost, TestHost]> {
  const options: TestHostOptions = {
    storeUrl: await server!.createDatabase(),
    dirs,
    autoInstall: false,
    workers: 1,
    allowEgress: ['127.0.0.1'],
    sharedQueuePollMs: 60_000,
  };
  for (let i = 0; i < 2; i++) hosts.push(await startTestHost(options));
  return [hosts[0], hosts[1]];
}

/** A receiver that holds the first `holding` requests unanswered (until closed) and answers the rest 200. */
async function holdingReceiver(holding: number): Promise<{ url: string; held(): number }> {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (held.length < holding) held.push(res);
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, held: () => held.length };
}

async function installWebhook(host: TestHost, url: string): Promise<string> {
  const created = await host.admin('/v1/integrations/host:webhook/installations', {
    method: 'POST',
    body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const configured = await host.admin(`/v1/installations/${id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify({ url, events: ['space_content_updated'] }),
  });
  expect(configured.status).toBe(200);
  return id;
}

/** Publishes one event through `host`; the id of the one delivery it queued. */
async function publish(host: TestHost, revisionId: string): Promise<string> {
  const answer = await host.admin('/v1/events', {
    method: 'POST',
    body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId }),
  });
  expect(answer.status).toBe(202);
  const { dispatched } = (await answer.json()) as { dispatched: { deliveryId: string }[] };
  expect(dispatched).toHaveLength(1);
  return dispatched[0].deliveryId;
}

async function statusOf(host: TestHost, installationId: string): Promise<Map<string, string>> {
  const response = await host.admin(`/v1/installations/${installationId}/deliveries?limit=100`);
  const { items } = (await response.json()) as { items: { id: string; status: string }[] };
  return new Map(items.map((item) => [item.id, item.status]));
}

describe.skipIf(postgresUnavailable !== undefined)('work announced between hosts on one PostgreSQL', () => {
  it("delivers through B at once the webhooks A queued while A's slots for the receiver were full", {
    timeout: 120_000,
  }, async () => {
    // Eight: a host's slots per receiver origin. A takes these itself (it has room: it announces nothing).
    const hook = await holdingReceiver(8);
    const [a, b] = await twoHosts(['test/fixtures/env-echo']);
    const id = await installWebhook(a, hook.url);
    const held: string[] = [];
    for (let i = 0; i < 8; i++) held.push(await publish(a, `held-${i}`));
    await waitFor(() => hook.held() === 8);
    expect([a.webhooks.activeCount(), b.webhooks.activeCount()]).toEqual([8, 0]);

    // A has no slot left for the receiver, and B looks at the outbox unprompted once a minute.
    const more: string[] = [];
    for (let i = 0; i < 3; i++) more.push(await publish(a, `more-${i}`));
    // B logs each attempt once it is recorded.
    const sentByB = (deliveryId: string) =>
      b.logs.some((line) => line.includes(`webhook ${deliveryId} attempt 1 to`) && line.includes('delivered'));
    await waitFor(() => more.every(sentByB));
    // While A's own eight still wait on the receiver.
    expect(a.webhooks.activeCount()).toBe(8);
    const status = await statusOf(a, id);
    expect(more.map((deliveryId) => status.get(deliveryId))).toEqual(Array(3).fill('succeeded'));
    expect(held.map((deliveryId) => status.get(deliveryId))).toEqual(Array(8).fill('in_flight'));
  });

  it("runs through B at once a task queued on A while A's task runner is stopped", {
    timeout: 120_000,
  }, async () => {
    const [a, b] = await twoHosts(['test/fixtures/gitbook-probe']);
    await a.tasks.stop();
    const queued = await callApi(
      a,
      await integrationToken(a, 'wire-echo'),
      'POST',
      '/v1/integrations/wire-echo/tasks',
      {
        task: { key: 'announced' },
      },
    );
    expect(queued.status).toBe(204);
    const tasksOn = async (host: TestHost) =>
      ((await (await host.admin('/v1/integrations/wire-echo/tasks')).json()) as { items: { status: string }[] }).items;
    await waitFor(async () => (await tasksOn(b))[0]?.status === 'succeeded');
    expect(await tasksOn(b)).toMatchObject([{ status: 'succeeded', attempts: 1 }]);
  });

  it("delivers through B at once the setup event owed on A while A's owed-event runner is stopped", {
    timeout: 120_000,
  }, async () => {
    const [a, b] = await twoHosts(['test/fixtures/owed-events']);
    await a.owedEvents.stop();
    const created = await a.admin('/v1/integrations/setup-relay/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const owedOn = async (host: TestHost) =>
      (
        (await (await host.admin(`/v1/installations/${id}/owed-events`)).json()) as {
          items: { type: string; status: string }[];
        }
      ).items;
    await waitFor(async () => (await owedOn(b))[0]?.status === 'delivered');
    expect(await owedOn(b)).toMatchObject([{ type: 'installation_setup', status: 'delivered', attempts: 1 }]);
  });
});
