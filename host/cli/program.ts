// The command line's grammar: every command, argument and option with its help, default,
// environment variable and an example, on commander (which also gives --version, "did you mean"
// and the help). Owns wording and parsing; each command's work loads only when it runs.

import { packageVersion } from '../common/package-root.ts';
import { Command, Help, Option } from 'commander';
import { commandLine } from '../common/invocation.ts';
import { addHostOptions, flagValues, hostOptionsFrom } from './host-flags.ts';
import { DEFAULT_INTEGRATIONS_DIR } from './defaults.ts';
import { TEMPLATES } from './scaffold.ts';

function examples(...lines: [string, string][]): string {
  const width = Math.max(...lines.map(([command]) => command.length)) + 2;
  const rows = lines.map(([command, what]) => `  ${what ? command.padEnd(width) : command}${what}`.trimEnd());
  return `\nExamples:\n${rows.join('\n')}\n`;
}

/**
 * commander shows a default only where it holds the value; many defaults here are decided later
 * (by the host, or from the platform data), so their words are shown as well.
 */
function describeOption(this: Help, option: Option): string {
  if (option.defaultValue !== undefined || !option.defaultValueDescription)
    return Help.prototype.optionDescription.call(this, option);
  const extra = [
    ...(option.argChoices ? [`choices: ${option.argChoices.join(', ')}`] : []),
    `default: ${option.defaultValueDescription}`,
    ...(option.envVar ? [`env: ${option.envVar}`] : []),
  ];
  return `${option.description} (${extra.join('; ')})`;
}

const HOST_ENVIRONMENT = `
Environment:
  HOST_ADMIN_TOKEN        the admin token (like --admin-token)
  DATABASE_URL            a PostgreSQL store when neither --store nor --data is given
  HOST_SECRETS_KEYS       the key ring of stored secrets (ID:KEY,…); HOST_SECRETS_KEYS_FILE names a file instead
  An integration's own variables (\${{ env.NAME }} in its manifest) come from the environment,
  the stored secrets, or (dev) its folder's .dev.vars file.`;

export function buildProgram(): Command {
  const program = new Command('integration-host')
    .description(
      'Host for untrusted third-party integrations: each runs in its own V8 isolate, behind scopes the host ' +
        'enforces.' +
        (process.env.INTEGRATION_HOST_INVOCATION
          ? ''
          : '\nIn a clone of its repository: npm run <command> -- [options].'),
    )
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help for the tool or a command')
    .helpCommand('help [command]', 'show help for a command')
    // Set before the commands are added: each command inherits them.
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(${commandLine('<command>', '--help')} shows the usage)`)
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false, optionDescription: describeOption })
    .addHelpText(
      'after',
      examples(
        [commandLine('new', 'greeter'), 'write integrations/greeter from a template'],
        [commandLine('dev'), 'serve ./integrations, reloading on every save'],
        [commandLine('check'), 'validate, bundle and type-check them'],
        [commandLine('test'), 'run their tests'],
        [commandLine('host', '--dir integrations --data /var/lib/host.db'), 'serve them for real'],
      ),
    );

  addHostOptions(
    program
      .command('host')
      .description('Serve integrations: the HTTP API, their public endpoints, the console and webhook delivery.'),
    'fixtures/integrations in a clone of the repository, ./integrations elsewhere',
  )
    .addHelpText(
      'after',
      `${HOST_ENVIRONMENT}\n${examples(
        [commandLine('host', '--dir integrations --port 8080'), 'serve ./integrations on port 8080'],
        [commandLine('host', '--store postgres://host@db/integrations'), 'share a PostgreSQL store with other hosts'],
      )}`,
    )
    .action(async (_options, command: Command) => {
      const { runHost } = await import('./host-command.ts');
      await runHost(hostOptionsFrom(flagValues(command), process.env));
    });

  addHostOptions(
    program
      .command('dev')
      .description(
        'The host in watch mode for authors: serves ./integrations, ' +
          'reloads an integration when a file it uses changes.',
      ),
    `./${DEFAULT_INTEGRATIONS_DIR}`,
  )
    .addHelpText(
      'after',
      `${HOST_ENVIRONMENT}\n${examples(
        [commandLine('dev'), `serve and watch ./${DEFAULT_INTEGRATIONS_DIR}`],
        [commandLine('dev', '--dir ../my-integrations --port 9000'), 'another folder, another port'],
      )}`,
    )
    .action(async (_options, command: Command) => {
      const { runDev } = await import('./dev-command.ts');
      await runDev(hostOptionsFrom(flagValues(command), process.env));
    });

  program
    .command('new')
    .description('Write a new integration from a template: a manifest, a typed script, a test, a tsconfig.json.')
    .argument('<name>', 'the integration name, lower-kebab-case (greeter, github-issues)')
    .addOption(new Option('--template <template>', 'what it starts as').choices([...TEMPLATES]).default('blank'))
    .addOption(
      new Option('--dir <folder>', 'the folder it is written in (as <folder>/<name>)').default(
        DEFAULT_INTEGRATIONS_DIR,
      ),
    )
    .addOption(
      new Option('--organization <id>', 'the organization that owns it').default(
        undefined,
        "the platform data's first organization",
      ),
    )
    .addHelpText(
      'after',
      examples(
        [commandLine('new', 'greeter'), `integrations/greeter, from the blank template`],
        [commandLine('new', 'gh-sync --template webhook-consumer'), 'one that receives signed webhooks'],
      ),
    )
    .action(async (name: string, options: { template: string; dir: string; organization?: string }) => {
      const { runNew } = await import('./new-command.ts');
      await runNew({ name, ...options });
    });

  program
    .command('check')
    .description(
      'Validate every manifest, bundle every script and type-check ' +
        'TypeScript integrations, without serving them; exits 1 on any error.',
    )
    .argument('[folders...]', `folders of integrations (or one integration's folder)`, [])
    .option('--no-types', 'skip the type-check')
    .addHelpText(
      'after',
      examples(
        [commandLine('check'), `check ./${DEFAULT_INTEGRATIONS_DIR}`],
        [commandLine('check', 'integrations/greeter --no-types'), 'one integration, without the type-check'],
      ),
    )
    .action(async (folders: string[], options: { types: boolean }) => {
      const { runCheck } = await import('./check-command.ts');
      await runCheck({ folders, types: options.types });
    });

  program
    .command('test')
    .description("Run integrations' tests (node:test files) with the Node and flags the host needs.")
    .argument('[files...]', 'test files or folders', [])
    .addHelpText(
      'after',
      examples(
        [commandLine('test'), `every ${DEFAULT_INTEGRATIONS_DIR}/*/test/*.test.ts`],
        [commandLine('test', 'integrations/greeter/test'), "one integration's tests"],
      ),
    )
    .action(async (files: string[]) => {
      const { runTests } = await import('./test-command.ts');
      await runTests(files);
    });

  program
    .command('logs')
    .description('Follow the event log of an integration on a running host (the dev host by default).')
    .argument('<integration>', 'the integration to follow')
    .option('--installation <id>', 'only this installation')
    .addOption(
      new Option('--url <url>', "the host's address").default(
        undefined,
        'the running dev host, else http://127.0.0.1:8787',
      ),
    )
    .addOption(
      new Option('--admin-token <token>', "the host's admin token")
        .env('HOST_ADMIN_TOKEN')
        .default(undefined, "the dev host's"),
    )
    .addHelpText(
      'after',
      examples(
        [commandLine('logs', 'greeter'), 'follow greeter on the dev host'],
        [commandLine('logs', 'greeter --url https://host.example --admin-token T'), 'on another host'],
      ),
    )
    .action(async (integration: string, options: { installation?: string; url?: string; adminToken?: string }) => {
      const { runLogs } = await import('./logs-command.ts');
      await runLogs({ integration, ...options });
    });

  addSecretsCommand(program);
  addPublishCommands(program);
  return program;
}

/** `publish`, `versions`, `rollback` and `publishers`: published integrations on a running host. */
function addPublishCommands(program: Command): void {
  const hostOption = () =>
    new Option('--host <url>', "the host's address")
      .env('INTEGRATION_HOST_URL')
      .default(undefined, 'http://127.0.0.1:8787');
  const tokenOption = () =>
    new Option('--token <token>', 'a publisher token for the organization (or the admin token)').env(
      'INTEGRATION_HOST_TOKEN',
    );
  const adminTokenOption = () => new Option('--admin-token <token>', "the host's admin token").env('HOST_ADMIN_TOKEN');
  const remote = (options: { host?: string; token?: string }) => ({
    ...(options.host ? { host: options.host } : {}),
    ...(options.token ? { token: options.token } : {}),
  });

  program
    .command('publish')
    .description(
      'Check and bundle an integration folder as `check` does, then upload it to a host: a new immutable version, ' +
        'served by every host on its store within a second.',
    )
    .argument('[folder]', 'the integration folder', '.')
    .addOption(hostOption())
    .addOption(tokenOption())
    .addHelpText(
      'after',
      `
Uploads the folder's files (not node_modules or dot-files such as .dev.vars) and the package files its
` +
        `bundle reads. Secrets are stored on the host (secrets set), never uploaded.
${examples(
  [commandLine('publish', 'integrations/greeter --host https://host.example'), 'with INTEGRATION_HOST_TOKEN set'],
  [commandLine('publish', '--token ihp_… --host http://127.0.0.1:8787'), 'the folder you are in'],
)}`,
    )
    .action(async (folder: string, options: { host?: string; token?: string }) => {
      const { runPublish } = await import('./publish-command.ts');
      await runPublish(folder, remote(options));
    });

  program
    .command('versions')
    .description("List a published integration's versions on a host, newest first; * marks the current one.")
    .argument('<integration>', 'the integration name')
    .addOption(hostOption())
    .addOption(tokenOption())
    .addHelpText('after', examples([commandLine('versions', 'greeter --host https://host.example'), '']))
    .action(async (integration: string, options: { host?: string; token?: string }) => {
      const { runVersions } = await import('./publish-command.ts');
      await runVersions(integration, remote(options));
    });

  program
    .command('rollback')
    .description('Make an earlier version of a published integration current again (after it starts in an isolate).')
    .argument('<integration>', 'the integration name')
    .argument('<version>', 'the version to serve (see versions)')
    .addOption(hostOption())
    .addOption(tokenOption())
    .addHelpText('after', examples([commandLine('rollback', 'greeter 3 --host https://host.example'), '']))
    .action(async (integration: string, version: string, options: { host?: string; token?: string }) => {
      const { runRollback } = await import('./publish-command.ts');
      await runRollback(integration, version, remote(options));
    });

  const publishers = program
    .command('publishers')
    .description("An operator's publisher tokens: one per organization whose authors may publish.")
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true, optionDescription: describeOption })
    .addOption(hostOption())
    .addOption(adminTokenOption())
    .addHelpText(
      'after',
      examples(
        [commandLine('publishers', 'issue --organization acme --label "acme CI"'), 'prints the token once'],
        [commandLine('publishers', 'list'), 'ids, organizations, revoked or not; never a token'],
        [commandLine('publishers', 'revoke pub_0123456789abcdef'), ''],
      ),
    );
  const adminFlags = (command: Command) => {
    const options = command.parent!.opts<{ host?: string; adminToken?: string }>();
    return {
      ...(options.host ? { host: options.host } : {}),
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    };
  };
  publishers
    .command('issue')
    .description('issue a token for an organization; printed once, stored as a hash')
    .requiredOption('--organization <id>', 'the organization whose integrations it may publish')
    .option('--label <text>', 'what it is for (shown in listings)')
    .action(async (options: { organization: string; label?: string }, command: Command) => {
      const { runIssuePublisher } = await import('./publishers-command.ts');
      await runIssuePublisher({ ...adminFlags(command), ...options });
    });
  publishers
    .command('list')
    .description('every publisher, revoked ones included')
    .action(async (_options: unknown, command: Command) => {
      const { runListPublishers } = await import('./publishers-command.ts');
      await runListPublishers(adminFlags(command));
    });
  publishers
    .command('revoke')
    .description('refuse its token from now on')
    .argument('<id>', 'the publisher id (pub_…)')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { runRevokePublisher } = await import('./publishers-command.ts');
      await runRevokePublisher(id, adminFlags(command));
    });
}

/** `secrets` and its subcommands: the store flags belong to `secrets`, so any subcommand takes them. */
function addSecretsCommand(program: Command): void {
  const run =
    (name: 'set' | 'list' | 'unset' | 'rotate' | 'new-key') =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const secrets = command.parent!;
      const { runSecrets } = await import('./secrets-command.ts');
      const options = secrets.opts<{ data?: string; store?: string }>();
      const fromEnv = secrets.getOptionValueSource('store') === 'env';
      await runSecrets(
        name,
        command.args,
        {
          ...(options.data !== undefined ? { data: options.data } : {}),
          ...(options.store && !fromEnv ? { store: options.store } : {}),
        },
        process.env,
      );
    };
  const secrets = program
    .command('secrets')
    .description(
      'Secrets an operator stores per integration, encrypted; every host on the store uses them without a restart.',
    )
    .addOption(new Option('--data <file>', 'the SQLite file of the store').default(undefined, '.data/host.db'))
    .addOption(new Option('--store <url>', 'a PostgreSQL store instead').env('DATABASE_URL'))
    // Set before the subcommands are added: their help shows the store flags too.
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true, optionDescription: describeOption })
    .addHelpText(
      'after',
      `\nThe key ring: HOST_SECRETS_KEYS (ID:KEY,…) or HOST_SECRETS_KEYS_FILE.\n${examples(
        [commandLine('secrets', 'new-key'), 'print a first key line, then export HOST_SECRETS_KEYS=<it>'],
        [`printf %s "$VALUE" | ${commandLine('secrets', 'set github-files CLIENT_SECRET')}`, ''],
        [commandLine('secrets', 'list github-files'), 'names and dates, never values'],
      )}`,
    );
  // Excess arguments reach the command, which explains why a value never comes from argv.
  secrets
    .command('set')
    .description(
      'store NAME for INTEGRATION; the value is read from stdin (a pipe or ' +
        'file: one final newline is dropped; a terminal: typed, not shown)',
    )
    .argument('<integration>')
    .argument('<name>')
    .allowExcessArguments()
    .action(run('set'));
  secrets
    .command('list')
    .description('names, when and how each was set, the key; never a value')
    .argument('[integration]')
    .action(run('list'));
  secrets
    .command('unset')
    .alias('delete')
    .description('remove a stored secret')
    .argument('<integration>')
    .argument('<name>')
    .action(run('unset'));
  secrets
    .command('rotate')
    .description('re-encrypt every value with the newest key of HOST_SECRETS_KEYS')
    .action(run('rotate'));
  secrets
    .command('new-key')
    .description('print a new key line (ID:KEY) to add to HOST_SECRETS_KEYS')
    .action(run('new-key'));
}
