// The flags of `host` and `dev`: declared once on a commander Command (with their help, defaults
// and environment variables) and turned into host options. Pure apart from bad input (fail()):
// the message names the flag and what it expects.

import { Command, Option } from 'commander';
import { DEFAULT_HOST_PORT, DEFAULT_LISTEN_HOST, type HostOptionsInput } from '../config/options.ts';
import { DEFAULT_OFFENDER_CPU_QUOTA_PERCENT, MAX_OFFENDER_CPU_QUOTA_PERCENT } from '../offenders/index.ts';
import { fail } from './usage.ts';

/** What commander hands over for the flags below (strings as typed; booleans for --no-*). */
export interface HostFlagValues {
  dir?: string[];
  port?: string;
  bind?: string;
  data?: string;
  store?: string;
  logFormat?: string;
  metricsListen?: string;
  platform?: string;
  adminToken?: string;
  allowEgress?: string[];
  firstParty?: string[];
  workers?: string;
  isolateMemory?: string;
  offenderCpuQuota?: string;
  autoInstall?: boolean;
  publishedOverDir?: boolean;
  consolePort?: string;
  console?: boolean;
}

/** Declares the host's flags on `command`; `dirDefault` says in words where integrations come from without --dir. */
export function addHostOptions(command: Command, dirDefault: string): Command {
  return command
    .addOption(
      new Option('--dir <folder>', 'a folder of integrations to serve (repeat for more)')
        .argParser(collect)
        .default(undefined, dirDefault),
    )
    .addOption(
      new Option('--port <port>', 'the HTTP API port (0: any free port)').default(undefined, String(DEFAULT_HOST_PORT)),
    )
    .addOption(
      new Option('--bind <address>', 'the IP address the API and console listen on (0.0.0.0: every interface)').default(
        undefined,
        DEFAULT_LISTEN_HOST,
      ),
    )
    .addOption(new Option('--data <file>', 'the SQLite file of the store').default(undefined, '.data/host.db'))
    .addOption(
      new Option('--store <url>', 'a PostgreSQL store instead (postgres://…); several hosts may share it').env(
        'DATABASE_URL',
      ),
    )
    .addOption(
      new Option('--platform <file>', "the platform's data: organizations, users, spaces").default(
        undefined,
        'the sample platform of this package',
      ),
    )
    .addOption(
      new Option('--admin-token <token>', 'the token of the admin API and the console')
        .env('HOST_ADMIN_TOKEN')
        .default(undefined, 'generated for each run'),
    )
    .addOption(
      new Option(
        '--allow-egress <host[:port]|cidr>',
        'a non-public address integrations may fetch (repeat for more)',
      ).argParser(collect),
    )
    .addOption(
      new Option('--first-party <name>', 'an integration trusted with internal scopes (repeat for more)').argParser(
        collect,
      ),
    )
    .addOption(
      new Option('--workers <n>', 'sandbox worker processes (1–64)').default(
        undefined,
        'the number of CPUs, at least 2',
      ),
    )
    .addOption(
      new Option('--isolate-memory <mb>', 'memory budget of the live isolates of one worker, in MB').default(
        undefined,
        'a quarter of RAM, 64–4096',
      ),
    )
    .addOption(
      new Option('--offender-cpu-quota <percent>', "offenders' CPU, in % of one core; 0 = no quota").default(
        undefined,
        String(DEFAULT_OFFENDER_CPU_QUOTA_PERCENT),
      ),
    )
    .addOption(new Option('--no-auto-install', 'do not install each integration in its organization at start'))
    .addOption(
      new Option(
        '--published-over-dir',
        'serve the published version of a name a --dir folder also holds ' +
          '(default: the folder, and publishing it here is refused)',
      ),
    )
    .addOption(
      new Option('--log-format <format>', 'text for people, json for a log pipeline')
        .choices(['text', 'json'])
        .default(undefined, 'text'),
    )
    .addOption(
      new Option('--metrics-listen <host:port>', 'a second listener serving only GET /metrics, without a token'),
    )
    .addOption(new Option('--console-port <port>', "the browser console's port").default(undefined, 'the API port + 2'))
    .addOption(new Option('--no-console', 'no browser console'));
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The console's port: `--console-port`, else the API port + 2 (8789 beside the default 8787; 8788
 * is the dev OAuth provider's), and any free port when the API port is 0; none with `--no-console`.
 */
function consolePort(
  enabled: boolean,
  port: number | undefined,
  apiPort: number | undefined,
): { consolePort?: number } {
  if (!enabled) {
    if (port !== undefined) fail('--console-port and --no-console cannot be used together');
    return {};
  }
  if (port !== undefined) return { consolePort: port };
  const api = apiPort ?? DEFAULT_HOST_PORT;
  if (api === 0) return { consolePort: 0 };
  if (api + 2 > 65535)
    fail(`--port ${api} leaves no room for the console at port + 2; give --console-port or --no-console`);
  return { consolePort: api + 2 };
}

function integer(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max)
    fail(`--${flag} expects an integer from ${min} to ${max}, got "${text}"`);
  return value;
}

/** The host options the flags ask for; `env` supplies DATABASE_URL when neither --store nor --data is given. */
export function hostOptionsFrom(
  values: HostFlagValues,
  env: Record<string, string | undefined> = {},
): HostOptionsInput {
  if (values.store && values.data !== undefined)
    fail(
      '--store and --data name two different stores: give one (--data ' +
        'FILE for SQLite, --store postgres://… for PostgreSQL)',
    );
  // An empty DATABASE_URL counts as unset, like an empty HOST_ADMIN_TOKEN.
  const storeUrl = values.store || (values.data === undefined ? env.DATABASE_URL || undefined : undefined);
  const port = integer('port', values.port, 0, 65535);
  const options: HostOptionsInput = {
    autoInstall: values.autoInstall !== false,
    ...consolePort(values.console !== false, integer('console-port', values.consolePort, 0, 65535), port),
  };
  if (values.dir) options.dirs = values.dir;
  if (values.publishedOverDir === true) options.publishedOverDir = true;
  if (storeUrl !== undefined) options.storeUrl = storeUrl;
  if (values.logFormat === 'text' || values.logFormat === 'json') options.logFormat = values.logFormat;
  if (values.metricsListen !== undefined) options.metricsListen = values.metricsListen;
  if (port !== undefined) options.port = port;
  if (values.bind !== undefined) options.host = values.bind;
  if (values.data) options.dataPath = values.data;
  if (values.platform) options.platformPath = values.platform;
  if (values.adminToken) options.adminToken = values.adminToken;
  if (values.allowEgress) options.allowEgress = values.allowEgress;
  if (values.firstParty) options.firstPartyIntegrations = values.firstParty;
  const workers = integer('workers', values.workers, 1, 64);
  if (workers !== undefined) options.workers = workers;
  const isolateMemoryMb = integer('isolate-memory', values.isolateMemory, 16, 1_048_576);
  if (isolateMemoryMb !== undefined) options.limits = { isolateMemoryMb };
  const quota = integer('offender-cpu-quota', values.offenderCpuQuota, 0, MAX_OFFENDER_CPU_QUOTA_PERCENT);
  if (quota !== undefined) options.offenderCpuQuotaPercent = quota;
  return options;
}

/** Parses host flags given as words (what tests and embedders have); bad input exits 2 naming the flag. */
export function parseHostFlags(args: string[], env: Record<string, string | undefined> = {}): HostOptionsInput {
  const command = addHostOptions(new Command('host'), 'fixtures/integrations')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  try {
    command.parse(args, { from: 'user' });
  } catch (error) {
    fail((error as Error).message.replace(/^error: /, ''));
  }
  return hostOptionsFrom(flagValues(command), env);
}

/**
 * The flags as typed. The environment variables shown in the help (DATABASE_URL,
 * HOST_ADMIN_TOKEN) are the host's own to read, with their own precedence, so their values stay out.
 */
export function flagValues(command: Command): HostFlagValues {
  const values = { ...command.opts<HostFlagValues>() };
  if (command.getOptionValueSource('adminToken') === 'env') delete values.adminToken;
  if (command.getOptionValueSource('store') === 'env') delete values.store;
  return values;
}
