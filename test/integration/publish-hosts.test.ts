// Published integrations on two hosts sharing one PostgreSQL (a throwaway server started here),
// neither with the integration's folder: a version published through one host is served by the
// other within a second (measured, asserted against a generous bound); a second version replaces
// it on both under continuous load with no failed request and no restart; a rollback through the
// other host restores the first on both. Only 127.0.0.1 is contacted.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles } from '../helpers/archives.ts';
import { runCli } from '../helpers/cli.ts';
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

/** The author's folder, somewhere no host looks. */
const author = path.join(mkdtempSync(path.join(tmpdir(), 'author-')), 'greeter');

/** The author runs `publish` (or another command) with the token; its output once it exited. */
async function cli(args: string[], token: string): Promise<string> {
  const run = runCli(args, { env: { ...process.env, HOST_ADMIN_TOKEN: '', INTEGRATION_HOST_TOKEN: token } });
  const closed = new Promise((resolve) => run.child.once('close', resolve));
  const code = await run.exited;
  await closed;
  expect(code, run.out).toBe(0);
  return run.stdout;
}

async function publish(host: HostProcess, token: string, greeting: string): Promise<string> {
  for (const entry of integrationFiles('greeter', 'acme', greeting)) {
    mkdirSync(path.dirname(path.join(author, entry.name)), { recursive: true });
    writeFileSync(path.join(author, entry.name), entry.body ?? '');
  }
  return cli(['publish', author, '--host', host.url], token);
}

async function greetingAt(url: string): Promise<string | null> {
  const answer = await fetch(url).catch(() => null);
  if (answer === null || answer.status !== 200) return null;
  return ((await answer.json()) as { greeting?: string }).greeting ?? null;
}

/** The time of day (ms) of each of the host's log lines matching `pattern`: `HH:MM:SS.mmm level message`. */
function timesOf(host: HostProcess, pattern: RegExp): number[] {
  return host
    .output()
    .split('\n')
    .filter((line) => pattern.test(line))
    .flatMap((line) => {
      const match = /^(\d\d):(\d\d):(\d\d)\.(\d\d\d) /.exec(line);
      if (match === null) return [];
      const [hours, minutes, seconds, ms] = match.slice(1).map(Number);
      return [((hours * 60 + minutes) * 60 + seconds) * 1000 + ms];
    });
}

/**
 * How long after `from` logged `accepted` the other host logged `served` for the `skip + 1`th time
 * (both processes share this machine's clock): waits for both lines, then gives the difference.
 */
async function propagation(
  from: HostProcess,
  accepted: RegExp,
  to: HostProcess,
  served: RegExp,
  skip = 0,
): Promise<number> {
  await waitFor(() => timesOf(from, accepted).length > 0 && timesOf(to, served).length > skip, BOUND_MS);
  return timesOf(to, served)[skip] - timesOf(from, accepted).at(-1)!;
}

describe.skipIf(postgresUnavailable !== undefined)('published integrations on two hosts', () => {
  it('serve on both within a second, replace and roll back under load with no failed request', async () => {
    const url = await server!.createDatabase();
    // No host has a folder of the integration: each serves an empty --dir.
    const empty = mkdtempSync(path.join(tmpdir(), 'no-integrations-'));
    const common = { storeUrl: url, dirs: [empty], autoInstall: false };
    const a = await startHostProcess(common);
    hosts.push(a);
    const b = await startHostProcess(common);
    hosts.push(b);

    const issued = await a.admin('/v1/publishers', { method: 'POST', body: JSON.stringify({ organization: 'acme' }) });
    const { token } = (await issued.json()) as { token: string };
    expect(await publish(a, token, 'one')).toContain('published greeter version 1');
    const onB = await propagation(a, /greeter version 1 published by/, b, /greeter serves version 1 /);
    process.stdout.write(`the second host serves version 1 ${onB} ms after the first stored it\n`);
    expect(onB).toBeLessThan(BOUND_MS);
    const view = (await (await b.admin('/v1/integrations/greeter')).json()) as { published?: { version: number } };
    expect(view.published?.version).toBe(1);

    const created = await a.admin('/v1/integrations/greeter/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    const endpointPath = new URL(((await created.json()) as { urls: { publicEndpoint: string } }).urls.publicEndpoint)
      .pathname;
    const endpoints = [`${a.url}${endpointPath}`, `${b.url}${endpointPath}`];
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
    expect(await publish(b, token, 'two')).toContain('published greeter version 2');
    const swapped = await propagation(b, /greeter version 2 published by/, a, /greeter serves version 2 /);
    await waitFor(
      async () => [0, 1].every((host) => outcomes.findLast((entry) => entry.host === host)?.greeting === 'two'),
      BOUND_MS,
    );
    // The load goes on well past the swap: the new version keeps answering every request.
    const atSwap = outcomes.length;
    await waitFor(() => outcomes.length > atSwap + 400, 30_000);
    stop = true;
    await Promise.all(load);
    process.stdout.write(
      `the first host serves version 2 ${swapped} ms after the second stored it; ${outcomes.length} ` +
        'requests under load\n',
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

    expect(await cli(['rollback', 'greeter', '1', '--host', b.url], token)).toContain('greeter version 1 is current');
    // The first host served version 1 once already, at its publish: the second line is the rollback's.
    const restored = await propagation(b, /greeter version 1 made current by/, a, /greeter serves version 1 \(/, 1);
    await waitFor(
      async () => (await greetingAt(endpoints[0])) === 'one' && (await greetingAt(endpoints[1])) === 'one',
      BOUND_MS,
    );
    process.stdout.write(`the first host serves version 1 again ${restored} ms after the second rolled back\n`);
    expect(restored).toBeLessThan(BOUND_MS);
    const events = (await (await a.admin('/v1/integrations/greeter/events?limit=200')).json()) as {
      items: { version?: number }[];
    };
    expect(new Set(events.items.map((event) => event.version))).toEqual(new Set([1, 2]));
  }, 180_000);
});
