// `npm run dev`: the host in watch mode. Serves ./integrations (or --dir folders), watches every
// file an integration's bundle or manifest depends on, reloads on change (debounced) and says what
// happened in one line (then its problems and new warnings, printed as `npm run check` prints
// them); a change that fails keeps the last good build serving.

import { mkdir } from 'node:fs/promises';
import type { ReloadChange } from '../assembly/reload.ts';
import type { Logger } from '../common/logger.ts';
import { watchForChanges, type Watcher } from '../dev/watcher.ts';
import { reportLines } from '../manifest/format.ts';
import type { ManifestProblem } from '../manifest/types.ts';
import type { HostOptionsInput } from '../config/options.ts';
import { commandLine } from '../common/invocation.ts';
import { DEFAULT_INTEGRATIONS_DIR, SAMPLE_PLATFORM } from './defaults.ts';
import { removeDevSession, writeDevSession } from './dev-session.ts';
import { closeOnSignals, printStartup, startFromFlags } from './host-command.ts';

type Said = { level: 'info' | 'warn'; line: string };

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

type Added = Extract<ReloadChange, { kind: 'added' }>['installation'];

/** Where a newly added integration answers, or why it has no installation yet. */
function addedWhere(installation: Added): string {
  if (installation?.installation) return `: ${installation.installation.urls.publicEndpoint}`;
  return installation?.note ? ` (${installation.note})` : '';
}

/** What the terminal says about one reload change: its line, then every problem as `npm run check` prints it. */
export function describeChange(change: ReloadChange): Said[] {
  const info = (line: string): Said => ({ level: 'info', line });
  const warn = (line: string): Said => ({ level: 'warn', line });
  // Errors (and, for a failed load, every warning) indented under the change's own line.
  const problems = (errors: ManifestProblem[]) => reportLines(errors, change.warnings).map((line) => warn(`  ${line}`));
  switch (change.kind) {
    case 'code':
      return [
        info(
          `reloaded ${change.integration} in ${change.ms} ms: the next ` +
            `request runs the new code (bundle ${change.hash.slice(0, 8)})`,
        ),
        ...problems([]),
      ];
    case 'manifest':
      return [
        info(
          `reloaded ${change.integration} in ${change.ms} ms: ` +
            `changed ${change.changed.join('; ') || 'nothing the host uses'}; ` +
            `same code`,
        ),
        ...problems([]),
      ];
    case 'unchanged':
      return [
        info(
          `${change.integration}: no change (its files match the build that ` +
            `was serving again; the problems reported before are gone)`,
        ),
      ];
    case 'added':
      return [info(`added ${change.integration}${addedWhere(change.installation)}`), ...problems([])];
    case 'failed':
      return [
        warn(
          `${change.integration} did not reload ` +
            `(${plural(change.problems.length, 'problem')}); the last good ` +
            `build keeps serving:`,
        ),
        ...problems(change.problems),
      ];
    case 'invalid':
      return [
        warn(`${change.integration} is invalid (${plural(change.problems.length, 'problem')}):`),
        ...problems(change.problems),
      ];
  }
}

function report(log: Logger, changes: ReloadChange[]): void {
  for (const change of changes) for (const { level, line } of describeChange(change)) log[level](line);
}

export async function runDev(flags: HostOptionsInput): Promise<void> {
  const givesDir = flags.dirs !== undefined;
  // A fresh clone has no integrations/ yet: create it, so `npm run new` output appears live.
  if (!givesDir) await mkdir(DEFAULT_INTEGRATIONS_DIR, { recursive: true });
  // Development builds: `MODE` and `process.env.NODE_ENV` are "development" (bundle.ts).
  const { host, defaulted } = await startFromFlags(flags, {
    bundleMode: 'development',
    dirs: [DEFAULT_INTEGRATIONS_DIR],
    platformPath: SAMPLE_PLATFORM,
  });
  writeDevSession({ url: host.url, adminToken: host.adminToken, pid: process.pid });
  let watcher: Watcher | undefined;
  // Before "listening on": whoever reads that line may stop the host at once, and gracefully.
  closeOnSignals(host, () => {
    watcher?.close();
    removeDevSession();
  });
  await printStartup(host, defaulted);
  if (!host.integrations.some((integration) => integration.builtin === undefined)) {
    process.stdout.write(
      `no integrations in ${host.options.dirs.join(', ')} yet: ${commandLine('new', '<name>')} ` +
        `makes one, and it is served as soon as it is written\n`,
    );
  }
  const log = host.services.log;
  watcher = await watchForChanges(
    () => host.watchTargets(),
    async () => report(log, await host.reload()),
    { onError: (message) => log.warn(message) },
  );
  process.stdout.write(
    `watching ${host.options.dirs.join(', ')} for changes (${watcher.directoryCount()} ` +
      `directories); ${commandLine('logs', '<integration>')} follows the event log\n`,
  );
}
