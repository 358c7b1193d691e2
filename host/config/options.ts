// Host options: the one schema (ajv-compiled) and the defaults of docs/limits.md. Anything that
// builds a host (CLI, tests, benchmarks) goes through resolveOptions; it never reads argv.

import { isIP } from 'node:net';
import { availableParallelism, totalmem } from 'node:os';
import { Ajv } from 'ajv';
import { HostError } from '../common/errors.ts';
import type { SandboxLimits } from '../sandbox/messages.ts';
import type { Logger } from '../common/logger.ts';
import { OAUTH_STATE_TTL_MS } from '../installations/oauth-state.ts';
import { DEFAULT_OFFENDER_CPU_QUOTA_PERCENT, MAX_OFFENDER_CPU_QUOTA_PERCENT } from '../offenders/index.ts';

export const DEFAULT_HOST_PORT = 8787;
/** Where the API and console listeners bind unless told otherwise: loopback, never the network. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1';

/**
 * Why `value` cannot be the listeners' address (`host`, `--bind`), or undefined when it can: an IP
 * literal or `localhost`. A host name would bind whichever address DNS answers at start.
 */
export function listenHostProblem(value: string): string | undefined {
  if (value === 'localhost' || isIP(value) !== 0) return undefined;
  const hint = /^\[.*\]$/.test(value) ? ' (write an IPv6 address without brackets)' : '';
  return `--bind (host) expects an IP address or "localhost", got "${value}"${hint}`;
}

/** The most realms a worker's warm pool may hold (each is a few MB of the isolate budget). */
export const MAX_WARM_ISOLATES_PER_WORKER = 16;
/** Eight hours: a working day, after which the console asks for the admin token again. */
export const CONSOLE_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
import { parseAllowList } from '../bridge/egress-allow.ts';
import { checkResolveOverrides } from '../bridge/egress-resolve.ts';

export interface HostLimits extends SandboxLimits {
  /** Memory for live isolates across the sandbox workers, in MB (the cap on how many stay live). */
  isolateMemoryMb: number;
  maxPublicBodyBytes: number;
  maxEnvelopeBytes: number;
  crashesBeforeQuarantine: number;
  crashWindowMs: number;
  /** Dispatch timeouts within timeoutWindowMs that pause an integration for timeoutCooldownMs. */
  timeoutsBeforeCooldown: number;
  timeoutWindowMs: number;
  timeoutCooldownMs: number;
  /** What integrations may store through the platform API (see platform-api/deps.ts ApiQuotas). */
  maxPagesPerSpace: number;
  maxSpaceContentBytes: number;
  maxConversationBytesPerInstallation: number;
  /** Workers of their own for suspects of a crash no one can be blamed for, and how long they stay. */
  maxSolitaryWorkers: number;
  solitaryProbationMs: number;
  /** Integration tasks (docs/limits.md): waiting per integration, attempts per task, first retry delay. */
  maxPendingTasksPerIntegration: number;
  taskMaxAttempts: number;
  taskRetryBaseMs: number;
}

/**
 * Hooks for tests and development aids, never for production: kept apart from the operator's
 * settings so that nothing an operator configures can reach them.
 */
export interface HostTestHooks {
  /**
   * Fixed DNS answers for guest fetch (`{ 'metadata.test': ['169.254.169.254'] }`), still judged by the egress policy.
   */
  egressResolve?: Record<string, string[]>;
  /** The connect audit: called for every destination a guest fetch points a socket at. */
  onEgressConnect?: (event: { integration: string; address: string; port: number }) => void;
  /** The command that lowers the SCHED_IDLE worker (default util-linux's `chrt`). */
  schedIdleCommand?: string;
  /** The cgroup v1 cpu controller's directory, in place of the one /proc/self/mounts names. */
  cpuCgroupMount?: string;
  /** Whether the machine has no CPU to spare, in place of sampling /proc (the SCHED_IDLE worker's guard). */
  machineSaturated?: () => boolean;
  /**
   * Whether the SCHED_IDLE worker starved lately (had work, got no CPU), in place of sampling /proc (its way back to
   * nice 19).
   */
  schedIdleStarved?: () => boolean;
  /**
   * Shared store: how often the queues (webhooks, tasks, owed events) look for work no host announced,
   * in place of 5 s; a test sets it long to show that an announcement, not this look, brought the work.
   */
  sharedQueuePollMs?: number;
}

export interface HostOptions {
  dirs: string[];
  /** The address the API and console listeners bind (`--bind`): an IP literal or `localhost`; default 127.0.0.1. */
  host: string;
  port: number;
  dataPath: string;
  /** A postgres:// URL: run on PostgreSQL (shared by several hosts) instead of the SQLite file at dataPath. */
  storeUrl?: string;
  platformPath: string;
  adminToken?: string;
  allowEgress: string[];
  /**
   * Integrations the operator names the platform's own (`--first-party`): with those of the platform
   * data's `firstPartyIntegrations` and of its `firstPartyOrganizations`, the only ones that may
   * load with internal scopes (docs/manifest.md#scopes).
   */
  firstPartyIntegrations: string[];
  autoInstall: boolean;
  workers: number;
  /**
   * Move an integration to the low-priority offenders' worker after its first timeout, memory kill
   * or worker death (default true). Tests turn it off when an attack needs seconds of CPU after
   * its first strike, which the lowest priority would starve on a busy machine.
   */
  demoteOffenders: boolean;
  /**
   * The offenders' CPU quota (`--offender-cpu-quota`): all guest threads of the two offenders'
   * workers together get at most this percent of one core, through a cgroup v1 cpu group; 0 turns
   * it off. Default DEFAULT_OFFENDER_CPU_QUOTA_PERCENT. Where cgroups cannot be used, one warning
   * and offenders are only lowered (docs/operations.md).
   */
  offenderCpuQuotaPercent: number;
  limits: HostLimits;
  cacheDir?: string;
  /** Fill unset secret variables from each integration folder's `.dev.vars` (the CLI and the test harness do). */
  devVars: boolean;
  /** `MODE` and `process.env.NODE_ENV` in bundles: `npm run dev` and the test harness build development. */
  bundleMode: 'production' | 'development';
  env: Record<string, string | undefined>;
  logger?: Logger;
  /** `text` (default): human-readable lines; `json`: one JSON object per line. Ignored when `logger` is given. */
  logFormat: 'text' | 'json';
  /** HOST:PORT of a second listener serving only GET /metrics, without the admin token. */
  metricsListen?: string;
  /** On shutdown, how long requests in progress may take before their connections are closed (default 10 s). */
  shutdownGraceMs: number;
  /**
   * Shared store: how long a host keeps a claimed webhook delivery before another host may take it
   * over (its claimant presumed dead). Default: the attempt timeout (10 s) + 20 s.
   */
  webhookLeaseMs?: number;
  /**
   * How long a host keeps a claimed owed event (installation_setup, …) before it is presumed dead
   * and another host (or its own next start) may deliver it. Default: the dispatch deadline plus
   * the waitUntil deadline + 30 s.
   */
  owedEventLeaseMs?: number;
  /**
   * How often the host looks at the store's revision of stored secrets (ms; default 1 s): how soon
   * it sees a change another process made (`npm run secrets`, or a host whose notification was lost).
   */
  secretsPollMs: number;
  /**
   * How often the host looks at the store's revision of published versions (ms; default 1 s): the
   * safety net behind PostgreSQL's announcement, and how a SQLite host sees another process's change.
   */
  publishPollMs: number;
  /**
   * Whether a published integration takes the place of a --dir folder of the same name (default
   * false: the folder serves, and publishing that name to this host is refused; docs/operations.md).
   */
  publishedOverDir: boolean;
  /** Milliseconds since the epoch; injectable so tests can age OAuth states. Default Date.now. */
  clock: () => number;
  /** How long an OAuth `state` stays acceptable (docs/installations.md); default 10 minutes. */
  oauthStateTtlMs: number;
  /** The console's own listener (docs/console.md): absent = no console; 0 = any free port. */
  consolePort?: number;
  /** How long a console sign-in lasts; default 8 hours. */
  consoleSessionTtlMs: number;
  testHooks: HostTestHooks;
}

const DEFAULT_LIMITS: HostLimits = {
  memoryLimitMb: 128,
  dispatchTimeoutMs: 10_000,
  waitUntilTimeoutMs: 30_000,
  streamTimeoutMs: 30_000,
  maxFetchesPerDispatch: 50,
  maxResponseBytes: 10 * 1024 * 1024,
  maxFetchResponseBytes: 5 * 1024 * 1024,
  maxLogLineBytes: 8 * 1024,
  maxLogLinesPerDispatch: 1_000,
  maxLogBytesPerDispatch: 64 * 1024,
  hogCpuMs: 1_000,
  // A quarter of the machine's memory, at most 4 GB: the budget, not a count, bounds live isolates.
  isolateMemoryMb: Math.max(64, Math.min(4_096, Math.floor(totalmem() / 1024 / 1024 / 4))),
  maxLiveIsolatesPerWorker: 10_000,
  // Two ready realms (a few MB, inside the isolate budget) take the isolate and runtime start off a cold request.
  warmIsolatesPerWorker: 2,
  maxPublicBodyBytes: 1024 * 1024,
  maxEnvelopeBytes: 1024 * 1024,
  crashesBeforeQuarantine: 3,
  crashWindowMs: 60_000,
  timeoutsBeforeCooldown: 5,
  timeoutWindowMs: 60_000,
  timeoutCooldownMs: 30_000,
  maxSolitaryWorkers: 2,
  maxPagesPerSpace: 2_000,
  maxSpaceContentBytes: 64 * 1024 * 1024,
  maxConversationBytesPerInstallation: 64 * 1024 * 1024,
  solitaryProbationMs: 60_000,
  maxPendingTasksPerIntegration: 1_000,
  taskMaxAttempts: 5,
  taskRetryBaseMs: 10_000,
};

const positive = { type: 'integer', minimum: 1 } as const;
/** Limits whose range is not "a positive integer". */
const BOUNDED_LIMITS = new Map<string, object>([
  ['warmIsolatesPerWorker', { type: 'integer', minimum: 0, maximum: MAX_WARM_ISOLATES_PER_WORKER }],
]);
const OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    dirs: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
    host: { type: 'string', minLength: 1 },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    dataPath: { type: 'string', minLength: 1 },
    storeUrl: { type: 'string', minLength: 1 },
    platformPath: { type: 'string', minLength: 1 },
    adminToken: { type: 'string', minLength: 16 },
    allowEgress: { type: 'array', items: { type: 'string', minLength: 1 } },
    firstPartyIntegrations: { type: 'array', items: { type: 'string', minLength: 1 } },
    autoInstall: { type: 'boolean' },
    workers: positive,
    demoteOffenders: { type: 'boolean' },
    offenderCpuQuotaPercent: { type: 'integer', minimum: 0, maximum: MAX_OFFENDER_CPU_QUOTA_PERCENT },
    testHooks: {
      type: 'object',
      additionalProperties: false,
      properties: {
        egressResolve: {
          type: 'object',
          additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
        },
        onEgressConnect: {},
        schedIdleCommand: { type: 'string', minLength: 1 },
        cpuCgroupMount: { type: 'string', minLength: 1 },
        machineSaturated: {},
        schedIdleStarved: {},
        sharedQueuePollMs: { type: 'integer', minimum: 10 },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(
        Object.keys(DEFAULT_LIMITS).map((key) => [key, BOUNDED_LIMITS.get(key) ?? positive]),
      ),
    },
    cacheDir: { type: 'string' },
    devVars: { type: 'boolean' },
    bundleMode: { enum: ['production', 'development'] },
    env: { type: 'object' },
    logger: { type: 'object' },
    logFormat: { enum: ['text', 'json'] },
    metricsListen: { type: 'string', minLength: 1 },
    shutdownGraceMs: { type: 'integer', minimum: 0 },
    webhookLeaseMs: { type: 'integer', minimum: 1_000 },
    owedEventLeaseMs: { type: 'integer', minimum: 1_000 },
    secretsPollMs: { type: 'integer', minimum: 50, maximum: 3_600_000 },
    publishPollMs: { type: 'integer', minimum: 50, maximum: 3_600_000 },
    publishedOverDir: { type: 'boolean' },
    clock: {},
    oauthStateTtlMs: positive,
    consolePort: { type: 'integer', minimum: 0, maximum: 65535 },
    consoleSessionTtlMs: positive,
  },
} as const;

const validateOptions = new Ajv({ allErrors: true, strict: false }).compile(OPTIONS_SCHEMA);

export type HostOptionsInput = Partial<Omit<HostOptions, 'limits'>> & { limits?: Partial<HostLimits> };

export function resolveOptions(input: HostOptionsInput = {}): HostOptions {
  if (!validateOptions(input)) {
    const messages = (validateOptions.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}`);
    throw new HostError('ERR_OPTIONS_INVALID', `invalid host options: ${messages.join('; ')}`);
  }
  const hooks = input.testHooks ?? {};
  const problems = [
    ...parseAllowList(input.allowEgress ?? []).errors.map((problem) => `--allow-egress ${problem}`),
    ...checkResolveOverrides(hooks.egressResolve ?? {}),
  ];
  const listenProblem = input.host === undefined ? undefined : listenHostProblem(input.host);
  if (listenProblem !== undefined) problems.push(listenProblem);
  if (hooks.onEgressConnect !== undefined && typeof hooks.onEgressConnect !== 'function')
    problems.push('testHooks.onEgressConnect must be a function');
  if (hooks.machineSaturated !== undefined && typeof hooks.machineSaturated !== 'function')
    problems.push('testHooks.machineSaturated must be a function');
  if (hooks.schedIdleStarved !== undefined && typeof hooks.schedIdleStarved !== 'function')
    problems.push('testHooks.schedIdleStarved must be a function');
  if (problems.length > 0) throw new HostError('ERR_OPTIONS_INVALID', `invalid host options: ${problems.join('; ')}`);
  return {
    dirs: input.dirs ?? ['fixtures/integrations'],
    host: input.host ?? DEFAULT_LISTEN_HOST,
    port: input.port ?? DEFAULT_HOST_PORT,
    dataPath: input.dataPath ?? '.data/host.db',
    ...(input.storeUrl ? { storeUrl: input.storeUrl } : {}),
    platformPath: input.platformPath ?? 'fixtures/platform.yaml',
    ...(input.adminToken ? { adminToken: input.adminToken } : {}),
    allowEgress: input.allowEgress ?? [],
    firstPartyIntegrations: input.firstPartyIntegrations ?? [],
    autoInstall: input.autoInstall ?? true,
    workers: input.workers ?? Math.max(2, availableParallelism()),
    demoteOffenders: input.demoteOffenders ?? true,
    offenderCpuQuotaPercent: input.offenderCpuQuotaPercent ?? DEFAULT_OFFENDER_CPU_QUOTA_PERCENT,
    testHooks: hooks,
    limits: { ...DEFAULT_LIMITS, ...input.limits },
    ...(input.cacheDir ? { cacheDir: input.cacheDir } : {}),
    devVars: input.devVars ?? false,
    bundleMode: input.bundleMode ?? 'production',
    env: input.env ?? process.env,
    ...(input.logger ? { logger: input.logger } : {}),
    logFormat: input.logFormat ?? 'text',
    ...(input.metricsListen ? { metricsListen: input.metricsListen } : {}),
    shutdownGraceMs: input.shutdownGraceMs ?? 10_000,
    ...(input.webhookLeaseMs ? { webhookLeaseMs: input.webhookLeaseMs } : {}),
    ...(input.owedEventLeaseMs ? { owedEventLeaseMs: input.owedEventLeaseMs } : {}),
    secretsPollMs: input.secretsPollMs ?? 1_000,
    publishPollMs: input.publishPollMs ?? 1_000,
    publishedOverDir: input.publishedOverDir ?? false,
    clock: input.clock ?? Date.now,
    oauthStateTtlMs: input.oauthStateTtlMs ?? OAUTH_STATE_TTL_MS,
    ...(input.consolePort !== undefined ? { consolePort: input.consolePort } : {}),
    consoleSessionTtlMs: input.consoleSessionTtlMs ?? CONSOLE_SESSION_TTL_MS,
  };
}
