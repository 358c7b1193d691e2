// `npm run host`: starts the host from flags, prints the startup table (one line per integration:
// status, public endpoint or problems), the admin token and the address, and shuts down on
// SIGINT/SIGTERM. Never decides anything the host itself decides.

import { createHost, type Host } from '../index.ts';
import { describeDefaulted, withDevDefaults } from '../config/dev-env.ts';
import { formatProblem } from '../manifest/format.ts';
import { parseHostFlags } from './host-flags.ts';
import { fail } from './usage.ts';

function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')}\n`);
}

function startupRows(host: Host): string[][] {
  const rows: string[][] = [['integration', 'status', 'public endpoint / problems']];
  for (const integration of host.integrations) {
    if (integration.status === 'invalid') {
      integration.errors.forEach((problem, index) => rows.push([index === 0 ? integration.name : '', index === 0 ? 'invalid' : '', formatProblem(problem)]));
      continue;
    }
    const dev = host.devInstallations.find((entry) => entry.integration === integration.name);
    const endpoint = integration.builtin
      ? `(built in; install it on a ${integration.builtin.targets.join(' or ')})`
      : (dev?.installation?.urls.publicEndpoint ?? dev?.note ?? (integration.bundle ? '(not installed)' : '(no script)'));
    rows.push([integration.name, 'ready', endpoint]);
    for (const warning of integration.warnings) rows.push(['', 'warning', formatProblem(warning)]);
  }
  return rows;
}

export async function runHost(args: string[]): Promise<void> {
  let flags: ReturnType<typeof parseHostFlags>;
  try {
    flags = parseHostFlags(args, process.env);
  } catch (error) {
    fail((error as Error).message);
  }
  const { env, defaulted } = withDevDefaults(process.env);
  const host = await createHost({ ...flags, env });
  const note = describeDefaulted(defaulted);
  const tokenNote = host.adminTokenGenerated ? '  (generated for this run; set HOST_ADMIN_TOKEN or --admin-token to keep one)' : '';
  const log = host.services.log;
  if (host.options.logFormat === 'json') {
    // A log pipeline gets every startup line as a record of its own.
    for (const row of startupRows(host).slice(1)) log.info(`integration ${row.filter(Boolean).join(' ')}`);
    if (note !== undefined) log.info(note.replaceAll('\n', ' '));
    log.info(`store: ${host.stores.description}`);
    log.info(`admin token: ${host.adminToken}${tokenNote}`);
    if (host.metricsUrl) log.info(`metrics on ${host.metricsUrl}`);
    log.info(`listening on ${host.url}`);
    if (host.consoleUrl !== undefined) log.info(`console on ${host.consoleUrl}/console (sign in with the admin token)`);
  } else {
    printTable(startupRows(host));
    if (note !== undefined) process.stdout.write(`\n${note}\n`);
    process.stdout.write(`\nstore: ${host.stores.description}\n`);
    process.stdout.write(`admin token: ${host.adminToken}${tokenNote}\n`);
    if (host.metricsUrl) process.stdout.write(`metrics on ${host.metricsUrl}\n`);
    process.stdout.write(`listening on ${host.url}\n`);
    if (host.consoleUrl !== undefined) process.stdout.write(`console on ${host.consoleUrl}/console (sign in with the admin token)\n`);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    // A second signal means "now": the first one's graceful stop is abandoned.
    if (stopping) process.exit(1);
    stopping = true;
    log.info(`${signal}: shutting down (finishing requests in progress for up to ${host.options.shutdownGraceMs / 1000} s)`);
    host.shutdown().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
