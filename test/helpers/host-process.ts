// A real host in a child process, for tests that kill it (SIGKILL mid-attempt, SIGTERM under
// load) or run several hosts on one database. Stopped by pid; its output is kept for failures.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostOptionsInput } from '../../host/config/options.ts';
import { ADMIN_TOKEN } from './host.ts';

const CHILD = fileURLToPath(new URL('./host-process-child.ts', import.meta.url));
const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));
const MAX_OUTPUT_CHARS = 8_000_000;

export interface HostProcess {
  url: string;
  endpoints: Record<string, string>;
  metricsUrl: string | null;
  store: string;
  child: ChildProcess;
  output(): string;
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** Resolves with the exit signal or code once the process is gone. */
  exited: Promise<NodeJS.Signals | number | null>;
  kill(signal?: NodeJS.Signals): Promise<NodeJS.Signals | number | null>;
}

export async function startHostProcess(options: HostOptionsInput, timeoutMs = 60_000): Promise<HostProcess> {
  const child = spawn(
    NODE,
    ['--no-node-snapshot', CHILD, JSON.stringify({ adminToken: ADMIN_TOKEN, workers: 1, ...options })],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Kept for failures and for tests that read the log: all of it, unless a long run (a bench) makes
  // it large, when only its newest part stays.
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > MAX_OUTPUT_CHARS) output = output.slice(-MAX_OUTPUT_CHARS / 2);
  };
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const info = await new Promise<{
    url: string;
    endpoints: Record<string, string>;
    metricsUrl: string | null;
    store: string;
  }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`host process did not start within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    // Searched only until ready: a search of the whole log per chunk would cost a busy host's
    // parent time that grows with the log (a bench's whole core).
    const onData = (chunk: Buffer) => {
      keep(chunk);
      const match = /^HOST-READY (.*)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData).on('data', keep);
        resolve(JSON.parse(match[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', keep);
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`host process exited (${how}) before it was ready:\n${output}`));
    });
  });
  return {
    ...info,
    child,
    output: () => output,
    exited,
    admin(path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${ADMIN_TOKEN}`);
      if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(`${info.url}${path}`, { ...init, headers });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
