// The offenders' quota placement: a helper shell moves a worker's guest threads into the group
// (never its main thread), reads the group back, forgives a thread that ended, says which thread is
// missing, and sends a thread the write left out again at the next look (after a pause when the
// shell itself failed). The worker's thread never waits for the write: a `tasks` file that blocks
// (a FIFO nobody reads) leaves GuestThreads.check() returning at once. The group cases need a
// writable cgroup v1 cpu controller (skipped with the reason elsewhere).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openOffendersGroup, threadsInGroup, type OffendersGroup } from '../../host/offenders/cpu-quota.ts';
import { QuotaPlacer } from '../../host/offenders/quota-placer.ts';
import { GuestThreads, PLACER_RETRY_MS } from '../../host/offenders/guest-threads.ts';
import { guestThreadsOf, threadsOf } from '../../host/offenders/sched-policy.ts';
import { cgroupsUnavailable } from '../helpers/cgroups.ts';
import { waitFor } from '../helpers/host.ts';
import { startThreadsChild } from '../helpers/threads-child.ts';

const unavailable = cgroupsUnavailable();
let child: ChildProcess;
let pid: number;
const folder = mkdtempSync(path.join(tmpdir(), 'ih-placer-'));

beforeAll(async () => {
  ({ child, pid } = await startThreadsChild(2));
});
afterAll(() => {
  child?.kill();
  rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(unavailable !== null)(`QuotaPlacer${unavailable !== null ? ` (skipped: ${unavailable})` : ''}`, () => {
  let group: OffendersGroup;
  const placers: QuotaPlacer[] = [];

  beforeAll(() => {
    const opened = openOffendersGroup({ percent: 50 });
    if ('problem' in opened) throw new Error(opened.problem);
    group = opened;
  });
  afterAll(() => {
    for (const placer of placers) placer.close();
    group?.remove();
  });

  function placer(tasks = group.tasks): QuotaPlacer {
    const made = new QuotaPlacer(tasks, pid);
    placers.push(made);
    return made;
  }

  it('moves the threads it is given into the group, never the main thread, and reads them back', async () => {
    const threads = guestThreadsOf(pid);
    const outcome = await placer().place([pid, ...threads]);
    expect(outcome.problem).toBeNull();
    const held = threadsInGroup(group.dir);
    const alive = guestThreadsOf(pid);
    for (const thread of threads.filter((t) => alive.includes(t))) {
      expect(held, `thread ${thread}`).toContain(thread);
      expect(outcome.placed).toContain(thread);
    }
    expect(held).not.toContain(pid);
  });

  it('forgives a thread that is gone', async () => {
    // A thread id no process has (pid_max is at most 2^22).
    expect(await placer().place([4_194_999])).toEqual({ placed: [], problem: null });
  });

  it('says which thread is not in the group, and that a tasks file that is gone cannot be written', async () => {
    // /dev/null takes the write but is no group: the readback finds the thread missing.
    const [thread] = guestThreadsOf(pid);
    expect((await placer('/dev/null').place([thread])).problem).toBe(
      `1 of 1 threads are not in /dev/null (thread ${thread})`,
    );
    const gone = path.join(folder, 'gone', 'tasks');
    expect(await placer(gone).place([thread])).toEqual({
      placed: [],
      problem: `cannot move threads into ${gone}: ${gone} is gone or not writable`,
      shellFailed: true,
    });
  });
});

describe('GuestThreads with a quota', () => {
  it('sends a thread the write left out again at the next look, and one that is in never again', async () => {
    // A plain file named `tasks` keeps only the last id written: the readback finds that one in
    // and the others left out, as a group would after failed writes.
    const dir = path.join(folder, 'plain');
    mkdirSync(dir);
    const tasks = path.join(dir, 'tasks');
    writeFileSync(tasks, '');
    const problems: string[] = [];
    const threads = new GuestThreads({
      priority: 'nice19',
      pid,
      quotaTasks: tasks,
      onProblem: () => undefined,
      onQuotaProblem: (problem) => problems.push(problem),
    });
    const all = guestThreadsOf(pid);
    const written = new Set<number>();
    for (let look = 0; look < all.length; look++) {
      await threads.check();
      const last = Number(readFileSync(tasks, 'utf8').trim());
      expect(written.has(last), `look ${look} wrote ${last} again`).toBe(false);
      written.add(last);
    }
    expect([...written].sort()).toEqual([...all].sort());
    // Every thread is in now: the next look writes nothing.
    writeFileSync(tasks, '');
    await threads.check();
    expect(readFileSync(tasks, 'utf8')).toBe('');
    expect(problems).toHaveLength(1);
  });

  it('after the shell itself failed, sends threads to a new one only PLACER_RETRY_MS later', async () => {
    const dir = path.join(folder, 'later');
    const tasks = path.join(dir, 'tasks');
    let clock = 0;
    const problems: string[] = [];
    const threads = new GuestThreads({
      priority: 'nice19',
      pid,
      quotaTasks: tasks,
      now: () => clock,
      onProblem: () => undefined,
      onQuotaProblem: (problem) => problems.push(problem),
    });
    await threads.check();
    expect(problems[0]).toContain('is gone or not writable');
    mkdirSync(dir);
    writeFileSync(tasks, '');
    clock += PLACER_RETRY_MS - 1;
    await threads.check();
    expect(readFileSync(tasks, 'utf8')).toBe('');
    clock += 1;
    await threads.check();
    expect(guestThreadsOf(pid)).toContain(Number(readFileSync(tasks, 'utf8').trim()));
  });

  it(
    'never waits for the tasks write on its own thread: a ' + 'write that blocks leaves check() returning at once',
    async () => {
      const dir = path.join(folder, 'fifo');
      mkdirSync(dir);
      // Not named `tasks`: the readback reads the folder's `tasks`, which is not there.
      const fifo = path.join(dir, 'blocking-tasks');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      // Opening the FIFO to write blocks until someone reads it: a child whose check() wrote it on its
      // own thread would never say "returned" (and this test's thread stays free to notice).
      const script = `import { GuestThreads } from ${JSON.stringify(path.resolve('host/offenders/guest-threads.ts'))};
// Alive until the test closes stdin (the helper shell never keeps a process alive).
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
const problems = [];
const threads = new GuestThreads({
  priority: 'nice19',
  quotaTasks: ${JSON.stringify(fifo)},
  onProblem: () => {},
  onQuotaProblem: (problem) => problems.push(problem),
});
const checked = threads.check();
process.stdout.write('returned\\n');
await checked;
process.stdout.write(JSON.stringify(problems) + '\\n');
`;
      const checker = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      checker.stdout.setEncoding('utf8');
      checker.stdout.on('data', (chunk: string) => (out += chunk));
      let fd: number | undefined;
      try {
        await waitFor(() => out.includes('returned\n'), 20_000);
        const guests = threadsOf(checker.pid!).filter((thread) => thread !== checker.pid);
        // Now let the helper's writes through (read and write: this open never blocks).
        fd = openSync(fifo, constants.O_RDWR);
        await waitFor(() => out.split('\n').length >= 3, 20_000);
        const buffer = Buffer.alloc(4096);
        const written = buffer.subarray(0, readSync(fd, buffer)).toString().trim().split('\n').map(Number);
        expect(written.length).toBeGreaterThan(0);
        expect(written).not.toContain(checker.pid);
        for (const thread of written) expect(guests, `written ${thread}`).toContain(thread);
        // A FIFO is no group: the readback says so, once.
        const problems = JSON.parse(out.split('\n')[1]) as string[];
        expect(problems).toHaveLength(1);
        expect(problems[0]).toContain(`not in ${fifo}`);
      } finally {
        if (fd !== undefined) closeSync(fd);
        checker.kill();
      }
    },
  );
});
