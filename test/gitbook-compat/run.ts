// `npm run gitbook-compat`: exercises every GitBook integration of a prepared tree in one real host
// whose network is cut to loopback (exercise.ts), and prints per integration what was exercised,
// its outcome and the evidence, then `N of M work, …`; `prepare` makes such a tree. See docs/gitbook.md.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { exerciseIntegration, type IntegrationResult } from './exercise.ts';
import { startHarness } from './harness.ts';
import { integrationFolders, planExercise } from './plan.ts';
import { prepareTree, TREE_RECORD } from './prepare-tree.ts';
import { byOutcome, formatTable, reportJson, summaryLine } from './report.ts';
import { workersGlobals } from './runtime-globals.ts';

const USAGE = `Usage: npm run gitbook-compat -- <tree> [options]
       npm run gitbook-compat -- prepare <tree> --from <repository> [--ref <commit>]

Loads every integration of <tree>/integrations (a checkout of GitbookIO/integrations with its
dependencies installed) into one host, and exercises each as a user would: installs it where its
manifest's target says, fills its required configuration with placeholders, connects its buttons
(OAuth), renders its blocks and configuration components and presses their actions, calls its
endpoints, fetches its site script, fires the platform events it handles. Every third party is a
mock on one loopback address; no connection leaves 127.0.0.0/8. Prints a table (what was
exercised, outcome, evidence) and "N of M work, …". Exit 1 if a socket went anywhere but the mock.

Outcomes: works · cannot be built (a module its own build generates is missing) · fails in its own
code (on placeholder data) · broken by the host (a load refusal, a host ERR_* answer, a missing
platform API route or runtime global; the evidence is printed).

Options:
  --only <name>        exercise only this integration (manifest or folder name); may be repeated
  --json               print the results as JSON (every step) instead of the table
  --address <ip>       the mock's loopback address (default 127.77.x.y, from the process id)
  --https-port <n>     the mock's HTTPS port (default 443: integrations' URLs carry no port;
                       binding it needs root or CAP_NET_BIND_SERVICE)
  --http-port <n>      the mock's HTTP port (default 80)
  --help               this text

prepare: extracts integrations/ from <repository> (a bare git repository, a checkout, or a folder
holding integrations/; --ref picks the commit, default HEAD) into the new folder <tree> and
installs its dependencies with npm as GitBook's workspace would (docs/gitbook.md).`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function port(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535)
    fail(`--${name} must be a port number (0 for a free one), not ${value}`);
  return parsed;
}

function prepare(args: string[]): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string' }, ref: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return (process.stdout.write(`${USAGE}\n`), 0);
  if (positionals.length !== 1) fail('prepare takes one <tree>: the new folder to make');
  if (values.from === undefined)
    fail(
      'prepare needs --from <repository>: a git repository of GitbookIO/integrations, a checkout, or a folder ' +
        'holding integrations/',
    );
  prepareTree({
    tree: positionals[0],
    from: values.from,
    ...(values.ref ? { ref: values.ref } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stderr.write(`prepared ${path.resolve(positionals[0])}: now npm run gitbook-compat -- ${positionals[0]}\n`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'prepare') return prepare(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        only: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        address: { type: 'string' },
        'https-port': { type: 'string' },
        'http-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return (process.stdout.write(`${USAGE}\n`), 0);
  if (positionals.length !== 1) fail('give one <tree>: the folder holding integrations/');
  const tree = path.resolve(positionals[0]);
  const root = path.join(tree, 'integrations');
  if (!existsSync(root))
    fail(
      `${root} does not exist: give the folder holding integrations/ (make one with: npm run gitbook-compat -- ` +
        `prepare <tree> --from <repository>)`,
    );
  const address = values.address ?? `127.77.${(process.pid >> 8) & 255}.${process.pid & 255 || 1}`;
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address))
    fail(`--address must be an IPv4 address in 127.0.0.0/8, not ${address}`);
  const plans = integrationFolders(root).map(planExercise);
  if (plans.length === 0) fail(`${root} holds no integration (no folder with gitbook-manifest.yaml)`);
  const wanted = values.only ?? [];
  const unknown = wanted.filter(
    (name) => !plans.some((plan) => plan.name === name || path.basename(plan.folder) === name),
  );
  if (unknown.length > 0) fail(`no integration named ${unknown.join(', ')} in ${root}`);
  const selected =
    wanted.length === 0
      ? plans
      : plans.filter((plan) => wanted.includes(plan.name) || wanted.includes(path.basename(plan.folder)));

  process.stderr.write(`loading ${plans.length} integrations from ${root} into one host…\n`);
  const harness = await startHarness({
    dirs: [root],
    plans,
    address,
    httpsPort: port(values['https-port'], 'https-port', 443),
    httpPort: port(values['http-port'], 'http-port', 80),
  });
  const results: IntegrationResult[] = [];
  const { stored, unavailable } = harness.storedSecrets;
  if (stored.length > 0 || unavailable) {
    const which = stored.length > 0 ? `stored ${stored.join(', ')}` : 'none stored';
    const why = unavailable ? ` (${unavailable})` : '';
    process.stderr.write(`secrets outside their integration's namespace: ${which}${why}\n`);
  }
  try {
    const context = {
      client: harness.client,
      mock: harness.mock,
      runtimeGlobals: workersGlobals(),
      waitIdle: harness.waitIdle,
      currentRevision: harness.currentRevision,
    };
    for (const [index, plan] of selected.entries()) {
      const result = await exerciseIntegration(context, plan);
      results.push(result);
      const first = result.evidence[0] ? ` (${result.evidence[0].slice(0, 140)})` : '';
      process.stderr.write(`[${index + 1}/${selected.length}] ${plan.name}: ${result.outcome}${first}\n`);
    }
  } finally {
    await harness.close();
  }
  const record = path.join(tree, TREE_RECORD);
  const commit = existsSync(record)
    ? ((JSON.parse(readFileSync(record, 'utf8')) as { commit?: string | null }).commit ?? null)
    : null;
  if (values.json) {
    const meta = {
      tree,
      commit,
      loaded: plans.length,
      firstParty: harness.firstParty,
      storedSecrets: harness.storedSecrets,
      strayConnections: harness.strayConnections,
    };
    process.stdout.write(`${reportJson(results, meta)}\n`);
  } else {
    process.stdout.write(`${formatTable(results)}\n\n${byOutcome(results)}\n\n${summaryLine(results)}\n`);
    if (harness.strayConnections.length > 0)
      process.stdout.write(`\nSOCKETS OUTSIDE THE MOCK: ${harness.strayConnections.join(', ')}\n`);
  }
  return harness.strayConnections.length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`gitbook-compat: ${error.message}\n`);
    process.exit(1);
  },
);
