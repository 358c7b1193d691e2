// Every runnable hostile fixture at once, three rounds, against a host in its own process (as
// `npm run host` runs it), while /health and the neighbour `hello` are polled continuously: the
// host process never exits, every attack gets an HTTP answer, and every poll answers 200
// throughout. A round ends only once its attacks are answered and at least three polls have
// completed since it began, however slow the machine.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { redirectVia, startReceiver, type Receiver } from '../helpers/receivers.ts';

const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));
const CHILD = fileURLToPath(new URL('../helpers/hostile-host-child.ts', import.meta.url));

let child: ChildProcess;
let exited: string | null = null;
let url = '';
let endpoints: Record<string, string> = {};
let allowed: Receiver;
let forbidden: Receiver;

/**
 * The attacks: fixture → the query of one attacking request. The huge allocation takes ~9 s to be
 * stopped in a 64 MB isolate (V8 thrashes at the limit), so only the first round carries it.
 */
function attacks(withHugeAllocation: boolean): [string, string][] {
  const to = (target: string) => `target=${encodeURIComponent(target)}`;
  return [
    ['constructor-chain-escape', ''],
    ['node-module-access', ''],
    ['escape-probe', ''],
    ['stack-trace-paths', ''],
    ['reload-carry', 'stash=suite'],
    ['prototype-pollution', 'step=pollute'],
    ['hidden-intrinsics', 'step=tamper'],
    ['installation-snooping', ''],
    ['api-token-forgery', ''],
    [
      'ssrf-loopback',
      `${to(`http://127.1:${forbidden.port}/`)}&${to(redirectVia(allowed, `http://localhost:${forbidden.port}/`))}`,
    ],
    [
      'ssrf-private-network',
      `${to('http://169.254.169.254/latest/meta-data/')}&${to('http://metadata.test/')}` +
        `&${to(redirectVia(allowed, 'http://10.0.0.1/'))}`,
    ],
    ['heap-growth', ''],
    ...(withHugeAllocation ? [['huge-allocation', ''] as [string, string]] : []),
    ['infinite-loop', ''],
    ['loop-after-await', to(`${allowed.url}/`)],
    ['never-settling-promise', ''],
    ['unbounded-wait-until', 'mode=spin'],
    ['unbounded-wait-until', 'mode=tick'],
    ['fetch-flood', `count=60&${to(`${allowed.url}/hit`)}`],
    ['enormous-response', 'mb=8'],
    ['log-flood', 'lines=3000&huge=2&late=1'],
    ['runaway-timers', 'mode=start'],
    ['runaway-timers', 'mode=flood'],
    ['code-generation', 'mode=endless'],
    ['code-generation', 'mode=bloat'],
    ['code-generation', `mode=over-cap&chars=${9 * 1024 * 1024}`],
  ];
}

async function answered(request: Promise<Response>): Promise<number> {
  try {
    const response = await request;
    await response.arrayBuffer();
    return response.status;
  } catch {
    return -1;
  }
}

beforeAll(async () => {
  [allowed, forbidden] = await Promise.all([startReceiver('allowed'), startReceiver('forbidden')]);
  const options = {
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    workers: 2,
    allowEgress: [`127.0.0.1:${allowed.port}`],
    testHooks: { egressResolve: { 'metadata.test': ['169.254.169.254'] } },
    limits: {
      dispatchTimeoutMs: 1_000,
      memoryLimitMb: 64,
      waitUntilTimeoutMs: 500,
      maxResponseBytes: 1024 * 1024,
      maxLogLinesPerDispatch: 100,
    },
  };
  child = spawn(NODE, ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', CHILD, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.once('exit', (code, signal) => (exited = `code ${code} signal ${signal}`));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', () => reject(new Error(`host child exited before listening (${exited})`)));
  });
  ({ url, endpoints } = JSON.parse(first));
}, 60_000);

afterAll(async () => {
  if (child && exited === null) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await Promise.all([allowed?.close(), forbidden?.close()]);
});

describe('the host under every attack at once', () => {
  it('never exits, answers every attack, and keeps /health and its neighbour answering', async () => {
    const polls: { what: string; status: number }[] = [];
    let pollRounds = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const [health, neighbour] = await Promise.all([
          answered(fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) })),
          answered(fetch(endpoints.hello, { method: 'POST', signal: AbortSignal.timeout(10_000) })),
        ]);
        polls.push({ what: 'health', status: health }, { what: 'hello', status: neighbour });
        pollRounds++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const pollsBefore = pollRounds;
      // The host answers every dispatch by its backstop (twice the 1 s deadline plus grace), so 30 s
      // without an answer is a lost request, not a slow one.
      const statuses = await Promise.all(
        attacks(round === 0).map(async ([name, query]) => {
          const answer = await answered(fetch(`${endpoints[name]}?${query}`, { signal: AbortSignal.timeout(30_000) }));
          return `${name}?${query} → ${answer}`;
        }),
      );
      outcomes.push(...statuses);
      while (pollRounds < pollsBefore + 3) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    polling = false;
    await poll;

    expect(exited).toBeNull();
    expect(child.exitCode).toBeNull();
    // Every attack got an HTTP answer (a status, never a dropped connection or a hang).
    for (const outcome of outcomes) expect(outcome).toMatch(/ → [1-5]\d\d$/);
    expect(pollRounds).toBeGreaterThanOrEqual(9);
    expect(polls.filter((entry) => entry.status !== 200)).toEqual([]);
    expect(forbidden.hits).toEqual([]);
  }, 240_000);
});
