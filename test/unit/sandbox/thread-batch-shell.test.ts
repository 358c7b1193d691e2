// The long-lived shell behind the chrt runner and the quota placer: it skips an id that is no
// longer a thread of its process (ids are reused), and a batch stuck in it fails after the timeout
// even while later batches keep arriving. A stand-in script logs what it was run for.
import { describe, it, expect, afterEach, beforeAll, afterAll } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ThreadBatchShell } from '../../../host/offenders/thread-batch-shell.ts';
import { guestThreadsOf } from '../../../host/offenders/sched-policy.ts';
import { startThreadsChild } from '../../helpers/threads-child.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'ih-batch-shell-'));
const log = path.join(dir, 'calls.log');
const shells: ThreadBatchShell[] = [];
let child: ChildProcess;
let pid: number;

beforeAll(async () => {
  ({ child, pid } = await startThreadsChild(2));
});
afterAll(() => {
  child?.kill();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const shell of shells.splice(0)) shell.close();
  rmSync(log, { force: true });
});

function shell(perThread: string, batchTimeoutMs?: number): ThreadBatchShell {
  const made = new ThreadBatchShell({
    pid,
    arg: log,
    precondition: 'true',
    perThread,
    describe: (why) => `failed: ${why}`,
    ...(batchTimeoutMs !== undefined ? { batchTimeoutMs } : {}),
  });
  shells.push(made);
  return made;
}

describe('ThreadBatchShell', () => {
  it('runs for the threads of its process and skips an id that is none of them', async () => {
    const threads = guestThreadsOf(pid);
    // An id no process has now (pid_max is at most 2^22).
    expect(await shell('echo "$t" >> "$0"').run([4_194_999, ...threads])).toEqual({ output: '' });
    expect(readFileSync(log, 'utf8').trim().split('\n').map(Number)).toEqual(threads);
  });

  it('gives a stuck batch up after the timeout even while later batches keep arriving', async () => {
    const stuck = shell('sleep 30', 300);
    const [thread] = guestThreadsOf(pid);
    const first = stuck.run([thread]);
    let settled = false;
    void first.then(() => (settled = true));
    // More batches while the first waits: each used to put the timer off again.
    const later: Promise<unknown>[] = [];
    const feeding = setInterval(() => later.push(stuck.run([thread])), 100);
    try {
      while (!settled) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      clearInterval(feeding);
    }
    expect((await first).error).toBe('failed: timed out after 300 ms');
    for (const outcome of await Promise.all(later)) expect((outcome as { error?: string }).error).toBeDefined();
    expect(existsSync(log)).toBe(false);
  });
});
