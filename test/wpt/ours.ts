// Runs WPT files in our runtime through a real host: each file becomes a module-worker integration
// in a temporary folder (so each runs in an isolate of its own), served by an in-process host on
// loopback, and is run by one request to the integration's own endpoint. Writes only in the
// temporary folder; never opens a connection beyond loopback.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../../host/index.ts';
import type { Logger } from '../../host/common/logger.ts';
import { failedOutcome, type FileOutcome } from './outcome.ts';
import { runOne } from './ask.ts';
import { runPool } from './pool.ts';
import type { WptFile, WptSuite } from './suite.ts';
import { HARNESS_TIMEOUT_MS, workerScript } from './worker-script.ts';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/**
 * testharness's timeouts (10 s, 60 s) doubled, for `npm run wpt` and the conformance test alike
 * (a subtest must not pass in one and time out in the other): a busy machine is slow, and a test
 * that hangs costs its file this long.
 */
export const DEFAULT_TIMEOUT_MULTIPLIER = 2;

export interface RunOptions {
  /** Scales testharness's timeouts (10 s, 60 s for `timeout=long`). */
  timeoutMultiplier: number;
  concurrency: number;
  onOutcome?: (file: WptFile, outcome: FileOutcome) => void;
}

/** Integration names: `wpt-<index>` (the manifest's name pattern and 64 characters allow no paths). */
export function integrationName(index: number): string {
  return `wpt-${String(index).padStart(3, '0')}`;
}

/** The host's log, kept short: its last lines explain a file that failed in the host. */
function tailLogger(max = 200): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
    if (lines.length > max) lines.shift();
  };
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

/** The whole deadline of one file: its harness timeout plus time to compile and answer. */
export function fileDeadlineMs(file: WptFile, timeoutMultiplier: number): number {
  return Math.round((file.long ? HARNESS_TIMEOUT_MS.long : HARNESS_TIMEOUT_MS.normal) * timeoutMultiplier) + 30_000;
}

export async function runOurs(
  suite: WptSuite,
  files: WptFile[],
  options: RunOptions,
): Promise<Map<string, FileOutcome>> {
  const root = mkdtempSync(path.join(tmpdir(), 'ih-wpt-'));
  const integrations = path.join(root, 'integrations');
  const names = new Map<string, string>();
  files.forEach((file, index) => {
    const name = integrationName(index);
    names.set(file.path, name);
    const dir = path.join(integrations, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'platform-manifest.yaml'),
      `name: ${name}\ntitle: ${name}\ndescription: ${JSON.stringify(`WPT ${file.path}`)}\norganization: ` +
        `acme\nvisibility: public\nscopes: []\nscript: index.js\n`,
    );
    writeFileSync(path.join(dir, 'index.js'), workerScript(suite, file, options.timeoutMultiplier));
  });
  const longest = Math.max(...files.map((file) => fileDeadlineMs(file, options.timeoutMultiplier)));
  const logger = tailLogger();
  const host = await createHost({
    port: 0,
    dirs: [integrations],
    // Bundles of a temporary folder would only pile up in the repository's cache.
    cacheDir: path.join(root, 'bundles'),
    dataPath: ':memory:',
    platformPath: path.join(REPOSITORY, 'fixtures', 'platform.yaml'),
    workers: 2,
    // Only the requests below: no development installations, so no setup events.
    autoInstall: false,
    // CPU-heavy test files are not offenders here: keep every file on a regular worker.
    demoteOffenders: false,
    logger,
    env: {},
    limits: {
      dispatchTimeoutMs: longest,
      hogCpuMs: 3_600_000,
      timeoutsBeforeCooldown: 1_000,
      crashesBeforeQuarantine: 1_000,
    },
  }).catch((error: unknown) => {
    rmSync(root, { recursive: true, force: true });
    throw error;
  });
  const outcomes = new Map<string, FileOutcome>();
  try {
    const invalid = host.integrations.filter((integration) => integration.status !== 'ready');
    for (const integration of invalid) {
      const file = files.find((candidate) => names.get(candidate.path) === integration.name);
      const problems = integration.errors.map((problem) => problem.message).join('; ');
      if (file) outcomes.set(file.path, failedOutcome(`the host refused the generated integration: ${problems}`, 0));
    }
    await runPool(
      files.filter((file) => !outcomes.has(file.path)),
      options.concurrency,
      async (file) => {
        const name = names.get(file.path)!;
        const lastLogLine = () => logger.lines.filter((line) => line.includes(`[${name}`)).pop();
        const outcome = await runOne(
          `${host.url}/v1/integrations/${name}/integration`,
          fileDeadlineMs(file, options.timeoutMultiplier) + 30_000,
          lastLogLine,
        );
        outcomes.set(file.path, outcome);
        options.onOutcome?.(file, outcome);
      },
    );
  } finally {
    await host.close();
    rmSync(root, { recursive: true, force: true });
  }
  return outcomes;
}
