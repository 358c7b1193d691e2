// `npm run host`: starts the host from flags, prints the startup table (one block per integration:
// status, every installation's public endpoint, or the problems), the store, the admin token and
// the address, and shuts down on SIGINT/SIGTERM. Never decides anything the host itself decides.

import { createHost, type Host } from '../index.ts';
import { describeDefaulted, describeDevVars, withDevDefaults } from '../config/dev-env.ts';
import type { HostOptionsInput } from '../config/options.ts';
import { defaultHostDirs, SAMPLE_PLATFORM } from './defaults.ts';
import { formatTable, startupRows } from './startup-table.ts';

export interface StartedHost {
  host: Host;
  flags: HostOptionsInput;
}

/** Applies the flags (over `defaults`) and the dev defaults and starts the host; prints nothing. */
export async function startFromFlags(
  given: HostOptionsInput,
  defaults: HostOptionsInput = {},
): Promise<StartedHost & { defaulted: string[] }> {
  const flags: HostOptionsInput = { ...defaults, ...given };
  const { env, defaulted } = withDevDefaults(process.env);
  const host = await createHost({ ...flags, env, devVars: true });
  return { host, flags, defaulted };
}

/**
 * The table, the dev-defaults note (only when a loaded integration reads them), the store, the
 * token and the address: on stdout, or one log record each with `--log-format json`.
 */
export async function printStartup(host: Host, defaulted: string[]): Promise<void> {
  const rows = await startupRows(host);
  const note = describeDefaulted(
    defaulted,
    host.integrations.flatMap((integration) => Object.values(integration.manifest?.secrets ?? {})),
  );
  const tokenNote = host.adminTokenGenerated
    ? '  (generated for this run; set HOST_ADMIN_TOKEN or --admin-token to keep one)'
    : '';
  const log = host.services.log;
  if (host.options.logFormat === 'json') {
    // A log pipeline gets every startup line as a record of its own.
    for (const row of rows.slice(1)) log.info(`integration ${row.filter(Boolean).join(' ')}`);
    if (note !== undefined) log.info(note.replaceAll('\n', ' '));
    for (const line of describeDevVars(host.integrations)) log.info(line);
    log.info(`store: ${host.stores.description}`);
    log.info(`admin token: ${host.adminToken}${tokenNote}`);
    if (host.metricsUrl) log.info(`metrics on ${host.metricsUrl}`);
    log.info(`listening on ${host.url}`);
    if (host.consoleUrl !== undefined) log.info(`console on ${host.consoleUrl}/console (sign in with the admin token)`);
    return;
  }
  process.stdout.write(formatTable(rows));
  if (note !== undefined) process.stdout.write(`\n${note}\n`);
  for (const line of describeDevVars(host.integrations)) process.stdout.write(`${line}\n`);
  process.stdout.write(`\nstore: ${host.stores.description}\n`);
  process.stdout.write(`admin token: ${host.adminToken}${tokenNote}\n`);
  if (host.metricsUrl) process.stdout.write(`metrics on ${host.metricsUrl}\n`);
  process.stdout.write(`listening on ${host.url}\n`);
  if (host.consoleUrl !== undefined)
    process.stdout.write(`console on ${host.consoleUrl}/console (sign in with the admin token)\n`);
}

/** Shuts the host down gracefully on SIGINT/SIGTERM (after `beforeClose`); a second signal exits at once. */
export function closeOnSignals(host: Host, beforeClose: () => void = () => undefined): void {
  const log = host.services.log;
  let stopping = false;
  const shutdown = (signal: string) => {
    // A second signal means "now": the first one's graceful stop is abandoned.
    if (stopping) process.exit(1);
    stopping = true;
    beforeClose();
    log.info(
      `${signal}: shutting down (finishing requests in progress for up to ${host.options.shutdownGraceMs / 1000} s)`,
    );
    host.shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

export async function runHost(flags: HostOptionsInput): Promise<void> {
  const { host, defaulted } = await startFromFlags(flags, { dirs: defaultHostDirs(), platformPath: SAMPLE_PLATFORM });
  // Before "listening on": whoever reads that line may stop the host at once, and gracefully.
  closeOnSignals(host);
  await printStartup(host, defaulted);
}
