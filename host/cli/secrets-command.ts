// `secrets set|list|unset|rotate|new-key …`: the operator's secrets per integration,
// written straight to the store every host reads (the SQLite file or PostgreSQL), so it works
// with or without a host running; running hosts pick a change up by themselves. A value comes
// only from stdin and is never printed.

import { existsSync } from 'node:fs';
import { HostError } from '../common/errors.ts';
import { commandLine } from '../common/invocation.ts';
import type { Logger } from '../common/logger.ts';
import { openStoresExplained } from '../assembly/open-stores.ts';
import { HOW_TO_PROVIDE_A_KEY, KEYS_VARIABLE, newKeyLine, readKeyRing } from '../secrets/keys.ts';
import { checkIntegrationName, checkSecretName } from '../secrets/names.ts';
import { createSecretService, type SecretService } from '../secrets/service.ts';
import type { HostStores } from '../store/types.ts';
import { readPipedValue, readTypedValue } from './secret-input.ts';
import { formatTable } from './startup-table.ts';

const DEFAULT_DATA = '.data/host.db';

/** Exit 2 with the message and where the usage is (bad input). */
function usage(message: string): never {
  process.stderr.write(`error: ${message}\n(${commandLine('secrets', '--help')} shows the usage)\n`);
  process.exit(2);
}

const quiet: Logger = {
  info: () => undefined,
  warn: (message) => void process.stderr.write(`${message}\n`),
  error: (message) => void process.stderr.write(`${message}\n`),
};

interface Parsed {
  command: string;
  positionals: string[];
  storeUrl?: string;
  dataPath: string;
}

function expectArguments(parsed: Parsed, names: string[]): string[] {
  const { command, positionals } = parsed;
  if (command === 'set' && positionals.length === 3) {
    usage(
      `set reads the value from stdin, never from the command line (where shell history and the process list ` +
        `would keep it):\n  printf %s "$VALUE" | ${commandLine('secrets', 'set INTEGRATION NAME')}`,
    );
  }
  if (positionals.length !== names.length)
    usage(
      `${command} expects ${names.join(' ') || 'no argument'}` +
        (positionals.length > 0 ? `; got ${positionals.join(' ')}` : ''),
    );
  return positionals;
}

/** Bad names are refused before the store is touched: exit 2 with the rule. */
function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof HostError) usage(error.message);
    throw error;
  }
}

async function withStore<T>(
  parsed: Parsed,
  work: (service: SecretService, stores: HostStores) => Promise<T>,
): Promise<T> {
  const ring = await readKeyRing(process.env);
  const stores = await openStoresExplained({
    ...(parsed.storeUrl !== undefined ? { storeUrl: parsed.storeUrl } : {}),
    dataPath: parsed.dataPath,
    log: quiet,
  });
  try {
    return await work(createSecretService({ store: stores.secrets, ring, now: Date.now }), stores);
  } finally {
    await stores.close();
  }
}

async function readValue(integration: string, name: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return readPipedValue(stdin);
  process.stderr.write(
    `value of ${name} for ${integration} (typing is not shown; Enter ends it; for a multi-line value use < FILE): `,
  );
  return readTypedValue(stdin, () => process.stderr.write('\n'));
}

async function set(parsed: Parsed): Promise<void> {
  const [integration, name] = expectArguments(parsed, ['INTEGRATION', 'NAME']);
  checked(() => (checkIntegrationName(integration, 'INTEGRATION'), checkSecretName(name, 'NAME')));
  const ring = await readKeyRing(process.env);
  // Before the value is asked for: nobody types a secret only to hear it cannot be kept.
  if (ring.current === undefined)
    throw new HostError(
      'ERR_SECRETS_KEY_MISSING',
      `cannot store secret ${name} of ${integration}: no secrets key is configured; ${HOW_TO_PROVIDE_A_KEY}`,
    );
  const fresh = parsed.storeUrl === undefined && parsed.dataPath !== ':memory:' && !existsSync(parsed.dataPath);
  const value = await readValue(integration, name);
  await withStore(parsed, async (service, stores) => {
    const stored = await service.set(integration, name, value, 'cli');
    process.stdout.write(
      `${stored.created ? 'stored' : 'replaced'} ${name} for ${integration} in ${stores.description} ` +
        `(key ${stored.keyId}); running hosts use it within a second\n`,
    );
    if (fresh)
      process.stdout.write(
        `note: ${parsed.dataPath} did not exist and was created; pass ` +
          `--data with the file your host uses if this is not it\n`,
      );
  });
}

async function list(parsed: Parsed): Promise<void> {
  const [integration] = parsed.positionals.length === 0 ? [undefined] : expectArguments(parsed, ['INTEGRATION']);
  if (integration !== undefined) checked(() => checkIntegrationName(integration, 'INTEGRATION'));
  await withStore(parsed, async (service, stores) => {
    const items = await service.list(integration);
    if (items.length === 0) {
      process.stdout.write(
        `no secrets stored${integration !== undefined ? ` for ${integration}` : ''} in ${stores.description}\n`,
      );
      return;
    }
    const rows = [
      ['integration', 'name', 'set at', 'set by', 'key'],
      ...items.map((item) => [
        item.integration,
        item.name,
        item.setAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'),
        item.setBy,
        `${item.keyId}${item.readable ? '' : ' (cannot decrypt)'}`,
      ]),
    ];
    process.stdout.write(formatTable(rows));
    for (const item of items.filter((entry) => !entry.readable))
      process.stdout.write(`${item.integration} ${item.name}: ${item.problem}\n`);
  });
}

async function unset(parsed: Parsed): Promise<void> {
  const [integration, name] = expectArguments(parsed, ['INTEGRATION', 'NAME']);
  checked(() => (checkIntegrationName(integration, 'INTEGRATION'), checkSecretName(name, 'NAME')));
  await withStore(parsed, async (service, stores) => {
    if (!(await service.unset(integration, name)))
      throw new HostError(
        'ERR_NOT_FOUND',
        `${integration} has no stored secret ${name} in ${stores.description} ` +
          `(${commandLine('secrets', `list ${integration}`)} ` +
          `shows what it has)`,
      );
    process.stdout.write(
      `removed ${name} of ${integration} from ${stores.description}; running hosts stop using it within a second\n`,
    );
  });
}

async function rotate(parsed: Parsed): Promise<void> {
  expectArguments(parsed, []);
  await withStore(parsed, async (service) => {
    const result = await service.reencrypt();
    process.stdout.write(
      `re-encrypted ${result.reencrypted} value(s) with key ${result.keyId}; ${result.current} already used ` +
        'it' +
        (result.changedMeanwhile > 0
          ? `; ${result.changedMeanwhile} changed while this ran and were left as they are now`
          : '') +
        '\n',
    );
    if (result.unreadable.length > 0) {
      for (const entry of result.unreadable)
        process.stdout.write(`cannot re-encrypt ${entry.name} of ${entry.integration}: ${entry.problem}\n`);
      throw new HostError(
        'ERR_SECRETS_KEY_MISSING',
        `${result.unreadable.length} value(s) still need a key that is not ` +
          `in ${service.ring.source}: add it and run rotate again, or set those secrets ` +
          `anew`,
      );
    }
    if (service.ring.keys.size > 1)
      process.stdout.write(
        `every value now uses key ${result.keyId}: once every host runs ` +
          `with it, the other keys can leave ${KEYS_VARIABLE}\n`,
      );
  });
}

async function newKey(parsed: Parsed): Promise<void> {
  expectArguments(parsed, []);
  const ring = await readKeyRing(process.env);
  process.stdout.write(`${newKeyLine(ring.current ?? 0)}\n`);
  process.stderr.write(
    ring.current === undefined
      ? `a first key: set ${KEYS_VARIABLE} to that line for every host and for this command (or put it in a ` +
          `file named by HOST_SECRETS_KEYS_FILE); keep a copy: without it the stored secrets cannot be read\n`
      : `add that line to ${KEYS_VARIABLE} (keep the others), restart every ` +
          `host with it, then ${commandLine('secrets', 'rotate')}\n`,
  );
}

const COMMANDS = new Map<string, (parsed: Parsed) => Promise<void>>([
  ['set', set],
  ['list', list],
  ['unset', unset],
  ['rotate', rotate],
  ['new-key', newKey],
]);

/** Runs `secrets <command>` with its arguments (checked by program.ts) and the store flags. */
export async function runSecrets(
  command: string,
  positionals: string[],
  flags: { data?: string; store?: string },
  env: Record<string, string | undefined>,
): Promise<void> {
  if (flags.store && flags.data !== undefined) usage('--store and --data name two different stores: give one');
  const storeUrl = flags.store || (flags.data === undefined ? env.DATABASE_URL || undefined : undefined);
  const run = COMMANDS.get(command);
  if (run === undefined) usage(`unknown secrets command "${command}"`);
  await run({
    command,
    positionals,
    ...(storeUrl !== undefined ? { storeUrl } : {}),
    dataPath: flags.data ?? DEFAULT_DATA,
  });
}
