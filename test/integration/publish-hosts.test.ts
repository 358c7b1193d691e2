// Published integrations on two hosts sharing one PostgreSQL (a throwaway server started here),
// neither with the integration's folder: a version published through one host is served by the
// other within a second (measured, asserted against a generous bound); a second version replaces
// it on both under continuous load with no failed request and no restart; a rollback through the
// other host restores the first on both. Only 127.0.0.1 is contacted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import { waitFor } from '../helpers/host.ts';
import { startHostProcess, type HostProcess } from '../helpers/host-process.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../helpers/postgres.ts';

let server: TestPostgres | undefined;
const hosts: HostProcess[] = [];

beforeAll(async () => {
  if (postgresUnavailable === undefined) server = await startPostgres();
}, 60_000);
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.kill('SIGKILL')));
});
afterAll(async () => {
  await server?.stop();
});

/** How long the second host may take to serve what the first accepted: generous for a busy machine. */
const BOUND_MS = 10_000;

const upload = (host: HostProcess, token: string, greeting: string) =>
  fetch(`${host.url}/v1/integrations/greeter/versions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
    body: new Uint8Array(tarGz(integrationFiles('greeter', 'acme', greeting))),
  });

async function greetingAt(url: string): Promise<string | null> {
  const answer = await fetch(url).catch(() => null);
  if (answer === null || answer.status !== 200) return null;
  return ((await answer.json()) as { greeting?: string }).greeting ?? null;
}

/** Waits until `check` holds and says how long it took from `since`. */
async function timeUntil(check: () => Promise<boolean>, since: number): Promise<number> {
  await waitFor(check, BOUND_MS);
  return Math.round(performance.now() - since);
}

describe.skipIf(postgresUnavailable !== undefined)('published integrations on two hosts', () => {
  it('serve on both within a second, replace and roll back under load with no failed request', async () => {
    const url = await server!.createDatabase();
    const common = { storeUrl: url, dirs: ['test/fixtures/env-echo'], autoInstall: false };
    const a = await startHostProcess(common);
    hosts.push(a);
    const b = await startHostProcess(common);
    hosts.push(b);

    const issued = await a.admin('/v1/publishers', { method: 'POST', body: JSON.stringify({ organization: 'acme' }) });
    const { token } = (await issued.json()) as { token: string };
    const published = performance.now();
    expect((await upload(a, token, 'one')).status).toBe(201);
    const onB = await timeUntil(async () => {
      const answer = await b.admin('/v1/integrations/greeter');
      return answer.status === 200 && ((await answer.json()) as { status: string }).status === 'ready';
    }, published);
    process.stdout.write(`second host serves a new integration ${onB} ms after its publish was answered\n`);
    expect(onB).toBeLessThan(BOUND_MS);

    const created = await a.admin('/v1/integrations/greeter/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    const path = new URL(((await created.json()) as { urls: { publicEndpoint: string } }).urls.publicEndpoint).pathname;
    const endpoints = [`${a.url}${path}`, `${b.url}${path}`];
    expect(await greetingAt(endpoints[0])).toBe('one');
    await waitFor(async () => (await greetingAt(endpoints[1])) === 'one', BOUND_MS);

    // Continuous load on both hosts while the second version is published through B: bounded in
    // count and time, it stops by itself.
    const outcomes: { host: number; status: number; greeting: string | null }[] = [];
    let stop = false;
    const deadline = performance.now() + 60_000;
    const loop = async (host: number) => {
      while (!stop && outcomes.length < 20_000 && performance.now() < deadline) {
        const answer = await fetch(endpoints[host]).catch(() => null);
        const body = answer?.status === 200 ? ((await answer.json()) as { greeting?: string }) : null;
        outcomes.push({ host, status: answer?.status ?? 0, greeting: body?.greeting ?? null });
      }
    };
    const load = [0, 1, 0, 1].map(loop);
    await waitFor(() => outcomes.length > 50, BOUND_MS);
    const second = performance.now();
    expect((await upload(b, token, 'two')).status).toBe(201);
    const swapped = await timeUntil(
      async () => [0, 1].every((host) => outcomes.findLast((entry) => entry.host === host)?.greeting === 'two'),
      second,
    );
    // The load goes on well past the swap: the new version keeps answering every request.
    const atSwap = outcomes.length;
    await waitFor(() => outcomes.length > atSwap + 400, 30_000);
    stop = true;
    await Promise.all(load);
    process.stdout.write(
      `both hosts serve version 2 ${swapped} ms after its publish was answered; ${outcomes.length} requests ` +
        'under load\n',
    );
    const failed = outcomes.filter((entry) => entry.status !== 200 || entry.greeting === null);
    expect(failed).toEqual([]);
    // Each host moved once: no answer of the first version after one of the second.
    for (const host of [0, 1]) {
      const seen = outcomes.filter((entry) => entry.host === host).map((entry) => entry.greeting);
      expect(seen.slice(seen.indexOf('two'))).not.toContain('one');
    }
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();

    const rolled = performance.now();
    const back = await fetch(`${b.url}/v1/integrations/greeter/versions/1/current`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(back.status).toBe(200);
    const restored = await timeUntil(
      async () => (await greetingAt(endpoints[0])) === 'one' && (await greetingAt(endpoints[1])) === 'one',
      rolled,
    );
    process.stdout.write(`both hosts serve version 1 again ${restored} ms after the rollback was answered\n`);
    const events = (await (await a.admin('/v1/integrations/greeter/events?limit=200')).json()) as {
      items: { version?: number }[];
    };
    expect(new Set(events.items.map((event) => event.version))).toEqual(new Set([1, 2]));
  }, 180_000);
});
