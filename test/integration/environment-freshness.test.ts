// The host sends an installation's environment to a worker only when it changed (and the request
// URL pre-parsed); these tests pin down that the integration always sees the current record.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/env-echo'] });
});
afterAll(() => host?.close());

async function echo(query = ''): Promise<{ url: string; status: string; configuration: Record<string, unknown> }> {
  return (await fetch(`${endpointOf(host, 'env-echo')}${query}`)).json();
}

describe('environment freshness', () => {
  it('shows a configuration edit on the very next request', async () => {
    expect((await echo()).configuration).toEqual({});
    const id = installationOf(host, 'env-echo');
    const patched = await host.admin(`/v1/installations/${id}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ greeting: 'hi' }),
    });
    expect(patched.status).toBe(200);
    expect((await echo()).configuration).toEqual({ greeting: 'hi' });
    await host.admin(`/v1/installations/${id}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ greeting: 'bye' }),
    });
    expect((await echo()).configuration).toEqual({ greeting: 'bye' });
  });

  it('parses each request URL afresh (no stale cached URL)', async () => {
    expect((await echo('?a=1')).url).toBe('?a=1');
    expect((await echo('?a=2')).url).toBe('?a=2');
    expect((await echo('?a=1')).url).toBe('?a=1');
  });

  it('gets the environment again from a restarted worker', async () => {
    const worker = host.supervisor.workerOf('env-echo')!;
    const pid = host.supervisor.workerPid(worker);
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 30_000; // a bound, not an expectation: a busy machine is slow
    while (host.supervisor.workerPid(worker) === pid && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect((await echo()).configuration).toEqual({ greeting: 'bye' });
  });
});
