// Parses the flags of `npm run host` into host options. Pure apart from --help (prints, exits) and
// bad input (fail()): the message names the flag and what it expects.

import { parseArgs } from 'node:util';
import { DEFAULT_HOST_PORT, type HostOptionsInput } from '../config/options.ts';
import { USAGE, fail } from './usage.ts';
import { MAX_OFFENDER_CPU_QUOTA_PERCENT } from '../sandbox/cpu-quota.ts';

/**
 * The console's port: `--console-port`, else the API port + 2 (8789 beside the default 8787; 8788
 * is the dev OAuth provider's), and any free port when the API port is 0; none with `--no-console`.
 */
function consolePort(enabled: boolean, port: number | undefined, apiPort: number | undefined): { consolePort?: number } {
  if (!enabled) {
    if (port !== undefined) fail('--console-port and --no-console cannot be used together');
    return {};
  }
  if (port !== undefined) return { consolePort: port };
  const api = apiPort ?? DEFAULT_HOST_PORT;
  if (api === 0) return { consolePort: 0 };
  if (api + 2 > 65535) fail(`--port ${api} leaves no room for the console at port + 2; give --console-port or --no-console`);
  return { consolePort: api + 2 };
}

/** `env` supplies DATABASE_URL when --store is absent. */
export function parseHostFlags(args: string[], env: Record<string, string | undefined> = {}): HostOptionsInput {
  const { values, positionals } = parseArgs({
    args,
    allowNegative: true,
    allowPositionals: true,
    options: {
      dir: { type: 'string', multiple: true },
      port: { type: 'string' },
      bind: { type: 'string' },
      data: { type: 'string' },
      store: { type: 'string' },
      'log-format': { type: 'string' },
      'metrics-listen': { type: 'string' },
      platform: { type: 'string' },
      'admin-token': { type: 'string' },
      'allow-egress': { type: 'string', multiple: true },
      'first-party': { type: 'string', multiple: true },
      workers: { type: 'string' },
      'isolate-memory': { type: 'string' },
      'offender-cpu-quota': { type: 'string' },
      'auto-install': { type: 'boolean', default: true },
      'console-port': { type: 'string' },
      console: { type: 'boolean', default: true },
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
  const logFormat = values['log-format'];
  if (logFormat !== undefined && logFormat !== 'text' && logFormat !== 'json') fail(`--log-format expects "text" or "json", got "${logFormat}"`);
  if (values.store !== undefined && values.data !== undefined) fail('--store and --data name two different stores: give one (--data FILE for SQLite, --store postgres://… for PostgreSQL)');
  // An empty DATABASE_URL counts as unset, like an empty HOST_ADMIN_TOKEN.
  const storeUrl = values.store ?? (values.data === undefined ? env.DATABASE_URL || undefined : undefined);
  const port = integer('port', values.port, 0, 65535);
  return {
    ...(values.dir ? { dirs: values.dir } : {}),
    ...(storeUrl !== undefined ? { storeUrl } : {}),
    ...(logFormat !== undefined ? { logFormat } : {}),
    ...(values['metrics-listen'] !== undefined ? { metricsListen: values['metrics-listen'] } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(values.bind !== undefined ? { host: values.bind } : {}),
    ...(values.data ? { dataPath: values.data } : {}),
    ...(values.platform ? { platformPath: values.platform } : {}),
    ...(values['admin-token'] ? { adminToken: values['admin-token'] } : {}),
    ...(values['allow-egress'] ? { allowEgress: values['allow-egress'] } : {}),
    ...(values['first-party'] ? { firstPartyIntegrations: values['first-party'] } : {}),
    ...(values.workers !== undefined ? { workers: integer('workers', values.workers, 1, 64) } : {}),
    ...(values['isolate-memory'] !== undefined ? { limits: { isolateMemoryMb: integer('isolate-memory', values['isolate-memory'], 16, 1_048_576) } } : {}),
    ...(values['offender-cpu-quota'] !== undefined ? { offenderCpuQuotaPercent: integer('offender-cpu-quota', values['offender-cpu-quota'], 0, MAX_OFFENDER_CPU_QUOTA_PERCENT) } : {}),
    autoInstall: values['auto-install'] !== false,
    ...consolePort(values.console !== false, integer('console-port', values['console-port'], 0, 65535), port),
  };
}
