// Runs the same generated workers in workerd beside us: one workerd process (the binary the bench
// fetches into .cache/), one worker per WPT file (each its own isolate), and a router worker on a
// loopback port that passes `/<service>` to that file's worker through a service binding.
// Compatibility date: the binary's newest; no compatibility flags. Writes only a temporary folder.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compatibilityDateOf, freePort, spawnWorkerd, workerdBinary, WORKERD_VERSION } from '../bench/workerd.ts';
import { runOne } from './ask.ts';
import { fileDeadlineMs, type RunOptions } from './ours.ts';
import { failedOutcome, type FileOutcome } from './outcome.ts';
import { runPool } from './pool.ts';
import type { WptFile, WptSuite } from './suite.ts';
import { workerScript } from './worker-script.ts';

const ROUTER = `export default {
  async fetch(request, env) {
    const service = env[new URL(request.url).pathname.slice(1)];
    return service ? service.fetch(request) : new Response('no such test', { status: 404 });
  },
};
`;

const STARTUP_MS = 180_000;

export interface WorkerdRun {
  version: string;
  outcomes: Map<string, FileOutcome>;
}

function config(serviceNames: string[], port: number, compatibilityDate: string): string {
  const worker = (module: string, bindings = '') =>
    `(modules = [(name = "${module}", esModule = embed "${module}")], compatibilityDate = ` +
    `"${compatibilityDate}"${bindings})`;
  const bindings = `, bindings = [${serviceNames.map((name) => `(name = "${name}", service = "${name}")`).join(', ')}]`;
  const services = [
    `(name = "router", worker = ${worker('router.js', bindings)})`,
    ...serviceNames.map((name) => `(name = "${name}", worker = ${worker(`${name}.js`)})`),
  ];
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ${services.join(',\n    ')}
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "router") ],
);
`;
}

/** Runs `files` in workerd; throws with a one-line reason when workerd cannot be had or started. */
export async function runWorkerd(suite: WptSuite, files: WptFile[], options: RunOptions): Promise<WorkerdRun> {
  const binary = await workerdBinary();
  const compatibilityDate = await compatibilityDateOf(binary);
  const dir = mkdtempSync(path.join(tmpdir(), 'ih-wpt-workerd-'));
  const services = files.map((_, index) => `t${index}`);
  files.forEach((file, index) =>
    writeFileSync(path.join(dir, `${services[index]}.js`), workerScript(suite, file, options.timeoutMultiplier)),
  );
  writeFileSync(path.join(dir, 'router.js'), ROUTER);
  const port = await freePort();
  writeFileSync(path.join(dir, 'config.capnp'), config(services, port, compatibilityDate));
  const { child, stop, stderr } = spawnWorkerd(binary, dir);
  const url = `http://127.0.0.1:${port}`;
  try {
    const started = Date.now();
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`workerd exited with ${child.exitCode}: ${stderr().trim().split('\n').slice(-3).join(' | ')}`);
      try {
        await (await fetch(`${url}/ready`)).arrayBuffer();
        break;
      } catch {
        // not listening yet
      }
      if (Date.now() - started > STARTUP_MS) throw new Error(`workerd did not listen within ${STARTUP_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const outcomes = new Map<string, FileOutcome>();
    const byPath = new Map(files.map((file, index) => [file.path, services[index]]));
    // A file that brings workerd down (V8 out of memory: workerd sets no heap limit of its own)
    // fails with it every file in flight and after it; they say so instead of "fetch failed".
    const exited = () =>
      child.exitCode === null && child.signalCode === null
        ? null
        : `workerd exited (${child.exitCode ?? child.signalCode})`;
    const exitWithin = (ms: number) =>
      new Promise<void>((resolve) => {
        if (exited() !== null) return resolve();
        const timer = setTimeout(resolve, ms);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    const lastLine = () =>
      stderr()
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('stack:'))
        .pop()
        ?.slice(0, 300);
    await runPool(files, options.concurrency, async (file) => {
      const before = exited();
      let outcome =
        before === null
          ? await runOne(`${url}/${byPath.get(file.path)}`, fileDeadlineMs(file, options.timeoutMultiplier) + 30_000)
          : failedOutcome(before, 0, lastLine());
      if (outcome.loadError === 'the request failed') {
        await exitWithin(2_000);
        const after = exited();
        if (after !== null) outcome = failedOutcome(after, outcome.durationMs, lastLine());
      }
      outcomes.set(file.path, outcome);
      options.onOutcome?.(file, outcome);
    });
    return { version: `${WORKERD_VERSION} (compatibility date ${compatibilityDate})`, outcomes };
  } finally {
    await stop();
  }
}
