// Offenders spinning side by side on a low-priority worker must spin on lowered threads only, and
// that worker's main thread (its deadline timer, its 504s, its IPC) must stay above them (nice 10).
// isolated-vm runs each busy isolate on a thread of its own pool and, once the pool is full, on a
// one-off thread; both are created by the worker's main thread and would inherit its nice 10. So more spinners run at
// once here than the pool has threads (one more than the cores), and while they spin every thread the worker made for
// them must be at nice 19 (under SCHED_IDLE on the SCHED_IDLE worker). Read from /proc; the test waits on conditions,
// never on time.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { SCHED_IDLE, SCHED_OTHER, guestThreadsOf, threadStatField } from '../../host/offenders/sched-policy.ts';

// Long enough that every spinner is at work at once even on a loaded machine (their starts, on lowered
// threads, come before their deadlines), which is when threads are made for them.
const DEADLINE_MS = 5_000;
/** More than isolated-vm's pool (cores + 1) can hold, so that threads are made while they spin. */
const SPINNERS = cpus().length + 3;
const names = Array.from({ length: SPINNERS }, (_, i) => `spinner-${i + 1}`);
const folder = mkdtempSync(path.join(tmpdir(), 'ih-spinners-'));
let host: TestHost;

const SCRIPT = `import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request) {
    if (new URL(request.url).searchParams.get('mode') === 'ok') return new Response('fine');
    for (;;) {
      // spin
    }
  },
});
`;

beforeAll(async () => {
  for (const name of names) {
    mkdirSync(path.join(folder, name));
    writeFileSync(
      path.join(folder, name, 'platform-manifest.yaml'),
      `name: ${name}\ntitle: Spinner\ndescription: Spins until its deadline.\norganization: acme\nvisibility: ` +
        `public\nscopes: []\nscript: index.ts\n`,
    );
    writeFileSync(path.join(folder, name, 'index.ts'), SCRIPT);
  }
  host = await startTestHost({
    dirs: ['fixtures/integrations', ...names.map((name) => path.join(folder, name))],
    limits: { dispatchTimeoutMs: DEADLINE_MS, timeoutsBeforeCooldown: 100 },
    // The escalation must not depend on the machine's load (CI runs beside CPU burners).
    machineSaturated: () => false,
    schedIdleStarved: () => false,
  });
});
afterAll(async () => {
  await host?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Every spinner at once; resolves with their statuses. */
function spinAll(): Promise<number[]> {
  return Promise.all(names.map(async (name) => (await fetch(endpointOf(host, name))).status));
}

/**
 * While all spinners are in flight on the worker at `pid`: waits until threads made since `before`
 * exist and every thread but the main one runs as `lowered` says; fails if that never holds while
 * they spin (a thread left at normal priority lives as long as its spinner).
 */
async function expectLoweredWhileSpinning(
  pid: number,
  before: Set<number>,
  lowered: (thread: number) => boolean,
): Promise<void> {
  const spinning = () => names.every((name) => host.supervisor.inFlightCount(name) === 1);
  let seen = false;
  await waitFor(() => {
    if (!spinning()) return true; // over: `seen` says whether it ever held
    const threads = guestThreadsOf(pid);
    seen = threads.some((thread) => !before.has(thread)) && threads.every(lowered) && spinning();
    return seen;
  });
  expect(seen, 'threads made for the spinners were lowered while they spun').toBe(true);
}

const mainThreadAbove = (pid: number) => {
  expect(threadStatField(pid, pid, 19), 'main thread nice').toBe(10);
  expect(threadStatField(pid, pid, 41), 'main thread policy').toBe(SCHED_OTHER);
};

/**
 * Every spinner at once on the worker at `pid`: once all are in flight, their threads must be
 * lowered as `lowered` says and the main thread stay above them; resolves with their statuses.
 */
async function spinAllOn(pid: number, lowered: (thread: number) => boolean): Promise<number[]> {
  const before = new Set(guestThreadsOf(pid));
  const statuses = spinAll();
  await waitFor(() => names.every((name) => host.supervisor.inFlightCount(name) === 1));
  await expectLoweredWhileSpinning(pid, before, lowered);
  mainThreadAbove(pid);
  return statuses;
}

describe('offenders spinning side by side', () => {
  it('each lands on the nice-19 worker after its first timeout', async () => {
    expect(await spinAll()).toEqual(names.map(() => 504));
    for (const name of names) expect(host.supervisor.workerOf(name)).toBe(host.supervisor.offenderWorker);
  });

  it(
    'spin there on threads at nice 19 only, those made while they spin too, while the main thread stays above them ' +
      'at nice 10',
    async () => {
      const pid = host.supervisor.workerPid(host.supervisor.offenderWorker!);
      expect(await spinAllOn(pid, (thread) => threadStatField(pid, thread, 19) === 19)).toEqual(names.map(() => 504));
      // Each burned CPU again there: the next stop is the SCHED_IDLE worker.
      // There the host answered at the deadline; each move follows its worker's verdict.
      for (const name of names) await host.supervisor.verdictsArrived(name);
      for (const name of names) expect(host.supervisor.workerOf(name)).toBe(host.supervisor.schedIdleWorker);
    },
  );

  it(
    'spin on the SCHED_IDLE worker on threads under SCHED_IDLE only, those made while they spin too, while its main ' +
      'thread stays above them at nice 10',
    async () => {
      const pid = host.supervisor.workerPid(host.supervisor.schedIdleWorker!);
      // Their answers come from the main thread at the deadline, whatever CPU the spinners get.
      expect(
        await spinAllOn(
          pid,
          (thread) => threadStatField(pid, thread, 41) === SCHED_IDLE && threadStatField(pid, thread, 19) === 19,
        ),
      ).toEqual(names.map(() => 504));
    },
  );

  it('leaves the host and its neighbours answering', async () => {
    await expectHostHealthy(host);
  });
});
