// The SCHED_IDLE worker's `chrt` runner: one long-lived `sh` runs the command once per thread id it
// is sent, batch after batch, in order (the worker itself is never forked again); a command that is
// not installed, or one that fails, is reported as lowerThreads words it. A stand-in command logs
// what it was asked and by which `sh`, for the threads of a child process.
import { describe, it, expect, afterEach, beforeAll, afterAll } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SchedIdleHelper } from '../../../host/offenders/sched-idle-helper.ts';
import { guestThreadsOf } from '../../../host/offenders/sched-policy.ts';
import { startThreadsChild } from '../../helpers/threads-child.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'ih-idle-helper-'));
const log = path.join(dir, 'calls.log');
const fake = path.join(dir, 'fake-chrt');
const failing = path.join(dir, 'failing-thread');
// Logs "<parent pid> <args>"; the thread id in `failing` fails with a message on stderr, as chrt does.
writeFileSync(
  fake,
  `#!/bin/sh\necho "$PPID $*" >> ${JSON.stringify(log)}\nif [ "$4" = "$(cat ${JSON.stringify(failing)} ` +
    `2>/dev/null)" ]; then echo "chrt: failed to set pid $4's policy" >&2; exit 1; fi\nexit 0\n`,
);
chmodSync(fake, 0o755);
const helpers: SchedIdleHelper[] = [];
let child: ChildProcess;
let pid: number;
/** The child's thread ids other than its main thread: four or more. */
let threads: number[];
beforeAll(async () => {
  ({ child, pid } = await startThreadsChild(4));
  threads = guestThreadsOf(pid);
});
afterAll(() => child?.kill());
afterEach(() => {
  for (const helper of helpers.splice(0)) helper.close();
  rmSync(log, { force: true });
  rmSync(failing, { force: true });
});

function calls(): string[][] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
}

describe('SchedIdleHelper', () => {
  it('runs the command once per thread, batch after batch, from one sh', async () => {
    const helper = new SchedIdleHelper(fake, pid);
    helpers.push(helper);
    const [a, b, c, d] = threads;
    const [first, second] = await Promise.all([helper.lower([a, b]), helper.lower([c])]);
    expect(first).toEqual({ output: '' });
    expect(second).toEqual({ output: '' });
    expect((await helper.lower([d])).error).toBeUndefined();
    const seen = calls();
    expect(seen.map((call) => call.slice(1))).toEqual(
      [a, b, c, d].map((thread) => ['--idle', '--pid', '0', String(thread)]),
    );
    // The same parent for every batch: nothing was spawned per batch.
    expect(new Set(seen.map((call) => call[0])).size).toBe(1);
    expect(Number(seen[0][0])).not.toBe(process.pid);
  });

  it('passes on what a failing run said, and goes on with the next thread', async () => {
    const helper = new SchedIdleHelper(fake, pid);
    helpers.push(helper);
    const [a, b] = threads;
    writeFileSync(failing, String(a));
    const outcome = await helper.lower([a, b]);
    expect(outcome.error).toBeUndefined();
    expect(outcome.output).toContain(`failed to set pid ${a}'s policy`);
    expect(calls().map((call) => call[4])).toEqual([String(a), String(b)]);
  });

  it('says so when the command is not installed, and tries again on the next batch', async () => {
    const helper = new SchedIdleHelper(path.join(dir, 'no-such-chrt'), pid);
    helpers.push(helper);
    expect((await helper.lower([threads[0]])).error).toBe(
      `\`${path.join(dir, 'no-such-chrt')}\` (util-linux) is not installed`,
    );
    expect((await helper.lower([threads[1]])).error).toContain('is not installed');
  });

  it('resolves what is pending when closed', async () => {
    const slow = path.join(dir, 'slow-chrt');
    writeFileSync(slow, '#!/bin/sh\nexec sleep 2\n');
    chmodSync(slow, 0o755);
    const helper = new SchedIdleHelper(slow, pid);
    const pending = helper.lower([threads[0]]);
    helper.close();
    expect((await pending).error).toContain('could not be run');
  });
});

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
