// Runs the command line (host/cli.ts) as a child process the way npm scripts do, collects its
// output, waits on conditions (never sleeps), and stops it by pid.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Absolute, so a test may run the command line from another working directory. */
export const CLI = ['--no-node-snapshot', fileURLToPath(new URL('../../host/cli.ts', import.meta.url))];

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stdout and stderr so far. */
  readonly out: string;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when `pattern` appears in the output; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM (or `signal`) and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliProcess {
  return runNode([...CLI, ...args], options);
}

/** This Node (24) with `args` as given: a command line written elsewhere, such as the Dockerfile's. */
export function runNode(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliProcess {
  const child = spawn(process.execPath, args, {
    env: options.env ?? { ...process.env, HOST_ADMIN_TOKEN: '' },
    cwd: options.cwd,
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  child.stdout.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), notify()));
  child.stderr.on('data', (chunk: Buffer) => ((stderr += chunk.toString()), notify()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (notify(), resolve(code))));
  let done = false;
  // After 'close' no output can follow: a waitFor still waiting then fails at once, not at its timeout.
  child.once('close', () => ((done = true), notify()));
  const process_: CliProcess = {
    child,
    get out() {
      return stdout + stderr;
    },
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = (stdout + stderr).match(pattern);
          if (match) return finish(() => resolve(match));
          if (done) return finish(() => reject(new Error(`process exited before ${pattern}:\n${stdout}${stderr}`)));
        };
        const timer = setTimeout(
          () =>
            finish(() => reject(new Error(`${pattern} did not appear within ${timeoutMs} ms:\n${stdout}${stderr}`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (!done) child.kill(signal);
      return exited;
    },
  };
  return process_;
}
