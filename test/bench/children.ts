// Starts benchmark child processes (host or native Koa) and receives their info message; sums
// their resident memory from /proc. Children die with the benchmark (IPC disconnect).

import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Child<Info> {
  process: ChildProcess;
  info: Info;
  stop(): Promise<void>;
}

/** `v8Flags`: more flags for the child's Node (a sandbox worker's, to measure what a worker does). */
export async function startChild<Info>(
  entry: string,
  args: string[] = [],
  v8Flags: readonly string[] = [],
): Promise<Child<Info>> {
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), args, {
    execArgv: ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', ...v8Flags],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  // The child sends its info over IPC; its stdout (a host's access log) is read and dropped.
  child.stdout!.resume();
  const info = await new Promise<Info>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Info));
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
  return {
    process: child,
    info,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}

/** Resident set size of the given processes, in MB. */
export function residentMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
      if (match) kb += Number(match[1]);
    } catch {
      // A process that is gone has no memory left to count.
    }
  }
  return kb / 1024;
}
