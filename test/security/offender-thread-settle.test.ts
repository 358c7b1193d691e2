// A SCHED_IDLE worker's threads made after start-up: every one is reniced to nice 19 (and goes under
// the offenders' quota) at the first look, and one that lives on (as a thread running guest code
// does) goes under SCHED_IDLE at the first look SETTLE_MS later; a thread that ended before that
// (isolated-vm's watchdogs) never costs a `chrt` run. Exercised on a child process of ours with
// worker threads in place of isolated-vm's, a stand-in command that logs the thread ids it is
// given, and an injected clock; waits on conditions, never on time.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GuestThreads, SETTLE_MS } from '../../host/offenders/guest-threads.ts';
import {
  LOWERING_GRACE_MS,
  guestThreadsOf,
  loweringProblem,
  settledThreads,
  threadAgeMs,
  threadStatField,
} from '../../host/offenders/sched-policy.ts';
import { waitFor } from '../helpers/host.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'ih-settle-'));
const log = path.join(dir, 'chrt.log');
const fake = path.join(dir, 'fake-chrt');
writeFileSync(fake, `#!/bin/sh\necho "$4" >> ${JSON.stringify(log)}\n`);
chmodSync(fake, 0o755);

// A process whose threads the test makes and ends: "start" makes a worker thread that idles until
// "stop" ends the latest.
const CHILD = `
const { Worker } = require('node:worker_threads');
const workers = [];
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  for (const line of chunk.split('\\n')) {
    if (line === 'start') workers.push(new Worker('setInterval(() => {}, 1000)', { eval: true }));
    if (line === 'stop') workers.pop()?.terminate();
  }
});
process.stdin.on('end', () => process.exit(0));
`;
let child: ChildProcess;
let pid: number;
let clock = 0;
let threads: GuestThreads;

function chrtCalls(): number[] {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
}

beforeAll(async () => {
  child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'ignore', 'ignore'] });
  pid = child.pid!;
  await waitFor(() => guestThreadsOf(pid).length > 0);
  threads = new GuestThreads({
    priority: 'sched-idle',
    pid,
    command: fake,
    now: () => clock,
    onProblem: () => undefined,
  });
  // At start-up every thread goes through the command at once (the worker says it is ready after).
  const present = guestThreadsOf(pid);
  await threads.check();
  const alive = guestThreadsOf(pid);
  for (const thread of present.filter((t) => alive.includes(t))) expect(chrtCalls()).toContain(thread);
});
afterAll(() => {
  child?.stdin?.end();
  child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** The child's worker threads (Node names them WorkerThread), the stand-ins for guest threads. */
function workerThreads(): number[] {
  return guestThreadsOf(pid).filter((thread) => {
    try {
      return readFileSync(`/proc/${pid}/task/${thread}/comm`, 'utf8').trim() === 'WorkerThread';
    } catch {
      return false;
    }
  });
}

/**
 * Makes a worker thread in the child; resolves with its thread id. Only the worker's own thread is
 * taken: on a busy machine Node's own start-up threads (the inspector's signal thread) can still
 * appear meanwhile, and they never end.
 */
async function newThreads(): Promise<number[]> {
  const before = new Set(workerThreads());
  child.stdin!.write('start\n');
  let made: number[] = [];
  await waitFor(() => (made = workerThreads().filter((thread) => !before.has(thread))).length > 0);
  return made;
}

describe('threads made after start-up in the SCHED_IDLE worker', () => {
  it('are at nice 19 from the first look, and under SCHED_IDLE once they lived SETTLE_MS', async () => {
    const made = await newThreads();
    const calledBefore = chrtCalls().length;
    await threads.check();
    for (const thread of made) expect(threadStatField(pid, thread, 19), `thread ${thread} nice`).toBe(19);
    expect(chrtCalls()).toHaveLength(calledBefore);
    clock += SETTLE_MS;
    await threads.check();
    const alive = made.filter((thread) => guestThreadsOf(pid).includes(thread));
    expect(alive.length).toBeGreaterThan(0);
    for (const thread of alive) expect(chrtCalls(), `thread ${thread} given to the command`).toContain(thread);
  });

  it('never run the command for a thread that ended before it settled', async () => {
    const made = await newThreads();
    await threads.check();
    for (const thread of made) expect(threadStatField(pid, thread, 19)).toBe(19);
    child.stdin!.write('stop\n');
    await waitFor(() => made.every((thread) => !guestThreadsOf(pid).includes(thread)));
    clock += SETTLE_MS;
    await threads.check();
    for (const thread of made) expect(chrtCalls()).not.toContain(thread);
  });
});

// The host reads a SCHED_IDLE worker's policies back when it says it is ready; the worker makes
// threads right after (its warm pool's first realms), which it puts under SCHED_IDLE only once they
// settled. A readback a busy host made 150 ms late retired that worker (6 hosts of 10, a delay
// injected by hand; once in a CI run): threads younger than LOWERING_GRACE_MS are the worker's to lower.
describe("the host's readback of a SCHED_IDLE worker's threads", () => {
  it('leaves out threads younger than the grace, and those of unknown age count as old', () => {
    const ages = new Map([
      [1, 10],
      [2, LOWERING_GRACE_MS - 1],
      [3, LOWERING_GRACE_MS],
      [4, 60_000],
    ]);
    expect(settledThreads([1, 2, 3, 4, 5], (thread) => ages.get(thread) ?? Number.NaN)).toEqual([3, 4, 5]);
  });

  it("tells a thread's age from /proc: a thread made now is younger than the process", async () => {
    const [made] = await newThreads();
    const age = threadAgeMs(pid, made);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(threadAgeMs(pid, pid) + 10);
    expect(threadAgeMs(pid, 2_147_483_000)).toBeNaN();
  });

  it('reports old threads not under SCHED_IDLE, and forgives the same threads while they are young', () => {
    // The child's threads never ran the real `chrt`: all are still SCHED_OTHER.
    expect(loweringProblem(pid, 'sched-idle', () => LOWERING_GRACE_MS + 1)).toMatch(
      /^\d+ of \d+ guest threads did not take the policy$/,
    );
    expect(loweringProblem(pid, 'sched-idle', () => 0)).toBeNull();
  });
});
