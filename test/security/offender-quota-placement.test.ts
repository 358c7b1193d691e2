// The offenders' quota placement: a helper shell moves a worker's new guest threads into the group
// (never its main thread), reads the group back, forgives a thread that ended, and says which
// thread is missing and why when a write fails. Exercised on a child process's worker threads in a
// throwaway group; needs a writable cgroup v1 cpu controller (skipped with the reason elsewhere).
// And a worker's thread never waits for the write: a `tasks` file that blocks (a FIFO nobody reads)
// leaves GuestThreads.check() returning at once.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openOffendersGroup, threadsInGroup, type OffendersGroup } from '../../host/sandbox/cpu-quota.ts';
import { QuotaPlacer } from '../../host/sandbox/quota-placer.ts';
import { GuestThreads } from '../../host/sandbox/guest-threads.ts';
import { guestThreadsOf, threadStatField } from '../../host/sandbox/sched-policy.ts';
import { cgroupsUnavailable } from '../helpers/cgroups.ts';
import { waitFor } from '../helpers/host.ts';

const unavailable = cgroupsUnavailable();
// Two idle worker threads, the stand-ins for isolated-vm's; ends when its stdin closes.
const CHILD = `
const { Worker } = require('node:worker_threads');
for (let i = 0; i < 2; i++) new Worker('setInterval(() => {}, 1000)', { eval: true });
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

describe.skipIf(unavailable !== null)(`QuotaPlacer${unavailable !== null ? ` (skipped: ${unavailable})` : ''}`, () => {
  let child: ChildProcess;
  let pid: number;
  let group: OffendersGroup;
  const placers: QuotaPlacer[] = [];

  beforeAll(async () => {
    const opened = openOffendersGroup({ percent: 50 });
    if ('problem' in opened) throw new Error(opened.problem);
    group = opened;
    child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'ignore', 'ignore'] });
    pid = child.pid!;
    await waitFor(() => guestThreadsOf(pid).length >= 2);
  });
  afterAll(() => {
    for (const placer of placers) placer.close();
    child?.stdin?.end();
    child?.kill();
    group?.remove();
  });

  function placer(tasks = group.tasks): QuotaPlacer {
    const made = new QuotaPlacer(tasks, pid);
    placers.push(made);
    return made;
  }

  it('moves the threads it is given into the group, never the main thread, and reads them back', async () => {
    const threads = guestThreadsOf(pid);
    expect(await placer().place([pid, ...threads])).toBeNull();
    const held = threadsInGroup(group.dir);
    const alive = guestThreadsOf(pid);
    for (const thread of threads.filter((t) => alive.includes(t))) expect(held, `thread ${thread}`).toContain(thread);
    expect(held).not.toContain(pid);
  });

  it('forgives a thread that is gone', async () => {
    // A thread id no process has (pid_max is at most 2^22).
    expect(await placer().place([4_194_999])).toBeNull();
  });

  it('says which thread is not in the group and what the write said', async () => {
    // /dev/null takes the write but is no group: the readback finds the thread missing.
    const [thread] = guestThreadsOf(pid);
    expect(await placer('/dev/null').place([thread])).toBe(`1 of 1 threads are not in /dev/null (thread ${thread})`);
    const folder = mkdtempSync(path.join(tmpdir(), 'ih-placer-'));
    try {
      const gone = path.join(folder, 'gone', 'tasks');
      expect(await placer(gone).place([thread])).toBe(`cannot move threads into ${gone}: ${gone} is gone or not writable`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('GuestThreads with a quota', () => {
  it('never waits for the tasks write on its own thread: a write that blocks leaves check() returning at once', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'ih-placer-fifo-'));
    const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'ignore', 'ignore'] });
    let fd: number | undefined;
    try {
      const pid = child.pid!;
      await waitFor(() => guestThreadsOf(pid).length >= 2);
      // Not named `tasks`: the readback reads the folder's `tasks`, which is not there.
      const fifo = path.join(folder, 'blocking-tasks');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const problems: string[] = [];
      const threads = new GuestThreads({ priority: 'nice19', pid, quotaTasks: fifo, onProblem: () => undefined, onQuotaProblem: (problem) => problems.push(problem) });
      // Opening the FIFO to write blocks until someone reads it: a write from this thread would
      // never return from check().
      const before = guestThreadsOf(pid);
      const checked = threads.check();
      // Reniced at once, on this thread.
      for (const thread of before) expect(threadStatField(pid, thread, 19), `thread ${thread} nice`).toBe(19);
      // Now let the helper's writes through (read and write: this open never blocks).
      fd = openSync(fifo, constants.O_RDWR);
      await checked;
      const buffer = Buffer.alloc(4096);
      const written = buffer.subarray(0, readSync(fd, buffer)).toString().trim().split('\n').map(Number);
      expect(written.sort()).toEqual([...before].sort());
      // A FIFO is no group: the readback says so, once.
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(`not in ${fifo}`);
    } finally {
      if (fd !== undefined) closeSync(fd);
      child.stdin?.end();
      child.kill();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
