// `npm run dev`: the host in watch mode. Serves ./integrations (or --dir folders), watches every
// file an integration's bundle or manifest depends on, reloads on change (debounced) and says what
// happened in one line; a change that fails keeps the last good build serving.

import { mkdir } from 'node:fs/promises';
import type { ReloadChange } from '../assembly/reload.ts';
import type { Logger } from '../common/logger.ts';
import { watchForChanges, type Watcher } from '../dev/watcher.ts';
import { problemLines } from '../manifest/format.ts';
import { DEFAULT_INTEGRATIONS_DIR } from './defaults.ts';
import { removeDevSession, writeDevSession } from './dev-session.ts';
import { closeOnSignals, printStartup, startFromFlags } from './host-command.ts';


export function describeChange(change: ReloadChange): { level: 'info' | 'warn'; lines: string[] } {
  switch (change.kind) {
    case 'code':
      return { level: 'info', lines: [`reloaded ${change.integration} in ${change.ms} ms: the next request runs the new code (bundle ${change.hash.slice(0, 8)})`] };
    case 'manifest':
      return { level: 'info', lines: [`reloaded ${change.integration}'s manifest in ${change.ms} ms (same code)`] };
    case 'added':
      return { level: 'info', lines: [`added ${change.integration}${change.installation?.installation ? `: ${change.installation.installation.urls.publicEndpoint}` : change.installation?.note ? ` (${change.installation.note})` : ''}`] };
    case 'failed':
      return { level: 'warn', lines: [`${change.integration} did not reload (${change.problems.length} problem${change.problems.length === 1 ? '' : 's'}); the last good build keeps serving:`, ...change.problems.flatMap((problem) => problemLines(problem).map((line) => `  ${line}`))] };
    case 'invalid':
      return { level: 'warn', lines: [`${change.integration} is invalid (${change.problems.length} problem${change.problems.length === 1 ? '' : 's'}):`, ...change.problems.flatMap((problem) => problemLines(problem).map((line) => `  ${line}`))] };
  }
}

function report(log: Logger, changes: ReloadChange[]): void {
  for (const change of changes) {
    const { level, lines } = describeChange(change);
    for (const line of lines) log[level](line);
  }
}

export async function runDev(args: string[]): Promise<void> {
  const givesDir = args.some((arg) => arg === '--dir' || arg.startsWith('--dir='));
  // A fresh clone has no integrations/ yet: create it, so `npm run new` output appears live.
  if (!givesDir) await mkdir(DEFAULT_INTEGRATIONS_DIR, { recursive: true });
  // Development builds: `MODE` and `process.env.NODE_ENV` are "development" (bundle.ts).
  const { host, defaulted } = await startFromFlags(args, { bundleMode: 'development', ...(givesDir ? {} : { dirs: [DEFAULT_INTEGRATIONS_DIR] }) });
  writeDevSession({ url: host.url, adminToken: host.adminToken, pid: process.pid });
  let watcher: Watcher | undefined;
  // Before "listening on": whoever reads that line may stop the host at once, and gracefully.
  closeOnSignals(host, () => {
    watcher?.close();
    removeDevSession();
  });
  await printStartup(host, defaulted);
  if (!host.integrations.some((integration) => integration.builtin === undefined)) {
    process.stdout.write(`no integrations in ${host.options.dirs.join(', ')} yet: npm run new -- <name> makes one, and it is served as soon as it is written\n`);
  }
  const log = host.services.log;
  watcher = await watchForChanges(
    () => host.watchTargets(),
    async () => report(log, await host.reload()),
    { onError: (message) => log.warn(message) },
  );
  process.stdout.write(`watching ${host.options.dirs.join(', ')} for changes (${watcher.directoryCount()} directories); npm run logs -- <integration> follows the event log\n`);
}
