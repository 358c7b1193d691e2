// `npm run host` and `npm run check`: parses flags, starts the host or validates fixtures, and
// prints the startup table. The only file that reads argv or calls process.exit.

import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import { createHost } from './index.ts';
import { loadIntegrations } from './manifest/load.ts';
import { formatProblem } from './manifest/format.ts';
import { loadPlatformData } from './platform/data.ts';
import { HostError } from './common/errors.ts';
import type { LoadedIntegration } from './manifest/types.ts';
import { describeDefaulted, withDevDefaults } from './config/dev-env.ts';

const USAGE = `usage:
  npm run host -- [--dir D]... [--port P] [--data FILE] [--platform FILE] [--admin-token T]
                  [--allow-egress HOST[:PORT]|CIDR]... [--workers N] [--no-auto-install]
  npm run check -- DIR [DIR...]`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(code);
}

function parseHostFlags(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowNegative: true,
    allowPositionals: true,
    options: {
      dir: { type: 'string', multiple: true },
      port: { type: 'string' },
      data: { type: 'string' },
      platform: { type: 'string' },
      'admin-token': { type: 'string' },
      'allow-egress': { type: 'string', multiple: true },
      workers: { type: 'string' },
      'auto-install': { type: 'boolean', default: true },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (positionals.length > 0) fail(`unexpected argument "${positionals[0]}" (fixtures folders are given with --dir)`);
  const integer = (flag: string, text: string | undefined, min: number, max: number): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) fail(`--${flag} expects an integer from ${min} to ${max}, got "${text}"`);
    return value;
  };
  return {
    ...(values.dir ? { dirs: values.dir } : {}),
    ...(values.port !== undefined ? { port: integer('port', values.port, 0, 65535) } : {}),
    ...(values.data ? { dataPath: values.data } : {}),
    ...(values.platform ? { platformPath: values.platform } : {}),
    ...(values['admin-token'] ? { adminToken: values['admin-token'] } : {}),
    ...(values['allow-egress'] ? { allowEgress: values['allow-egress'] } : {}),
    ...(values.workers !== undefined ? { workers: integer('workers', values.workers, 1, 64) } : {}),
    autoInstall: values['auto-install'] !== false,
  };
}

function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')}\n`);
}

async function runHost(args: string[]): Promise<void> {
  let flags: ReturnType<typeof parseHostFlags>;
  try {
    flags = parseHostFlags(args);
  } catch (error) {
    fail((error as Error).message);
  }
  const { env, defaulted } = withDevDefaults(process.env);
  const host = await createHost({ ...flags, env });
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
  printTable(rows);
  const note = describeDefaulted(defaulted);
  if (note !== undefined) process.stdout.write(`\n${note}\n`);
  process.stdout.write(`\nadmin token: ${host.adminToken}${host.adminTokenGenerated ? '  (generated for this run; set HOST_ADMIN_TOKEN or --admin-token to keep one)' : ''}\n`);
  process.stdout.write(`listening on ${host.url}\n`);
  const shutdown = (signal: string) => {
    process.stdout.write(`${signal}: shutting down\n`);
    host.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

async function runCheck(args: string[]): Promise<void> {
  const dirs = args.filter((arg) => !arg.startsWith('-'));
  if (dirs.length === 0) fail('check needs at least one fixtures folder, e.g. npm run check -- fixtures/integrations');
  let firstParty: string[] = [];
  try {
    firstParty = loadPlatformData('fixtures/platform.yaml').firstPartyOrganizations;
  } catch {
    // Without the default platform file, internal scopes are simply never granted.
  }
  const { env, defaulted } = withDevDefaults(process.env);
  const integrations: LoadedIntegration[] = await loadIntegrations(dirs, { env, firstPartyOrganizations: firstParty });
  const note = describeDefaulted(defaulted);
  if (note !== undefined) process.stdout.write(`${note}\n`);
  let errors = 0;
  for (const integration of integrations) {
    for (const problem of integration.errors) process.stdout.write(`${formatProblem(problem)}\n`);
    for (const warning of integration.warnings) process.stdout.write(`${formatProblem(warning)} (warning)\n`);
    errors += integration.errors.length;
  }
  const invalid = integrations.filter((integration) => integration.status === 'invalid').length;
  const where = dirs.map((dir) => relative(process.cwd(), dir) || '.').join(', ');
  process.stdout.write(`${integrations.length} integration(s) checked in ${where}: ${integrations.length - invalid} ready, ${invalid} invalid, ${errors} error(s)\n`);
  process.exit(errors > 0 ? 1 : 0);
}

const [command, ...rest] = process.argv.slice(2);
const run = command === 'host' ? runHost : command === 'check' ? runCheck : undefined;
if (run === undefined) fail(`unknown command "${command ?? ''}"`);
run(rest).catch((error: unknown) => {
  const message = error instanceof HostError ? `${error.code}: ${error.message}` : (error as Error).stack ?? String(error);
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
