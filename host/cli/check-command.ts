// `check [DIR...] [--no-types]`: validates every manifest, bundles every script and
// type-checks TypeScript integrations without serving; prints `path: /json/pointer: message` per
// manifest problem, `file:line:col: error TSnnnn: message` per type error, a summary, and exits 1 on any error.

import { existsSync } from 'node:fs';
import path, { relative } from 'node:path';
import { describeDefaulted, describeDevVars, withDevDefaults } from '../config/dev-env.ts';
import { reportLines } from '../manifest/format.ts';
import { JSX_IMPORT_SOURCE, loadIntegrations } from '../manifest/load.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { loadPlatformData } from '../platform-data/data.ts';
import { typecheckIntegration, typeProblemLines } from '../typecheck/run-tsc.ts';
import { commandLine } from '../common/invocation.ts';
import { DEFAULT_INTEGRATIONS_DIR, SAMPLE_PLATFORM } from './defaults.ts';
import { fail } from './usage.ts';

const TYPED_SCRIPT = /\.(ts|tsx|mts)$/i;

/** Type errors of every ready TypeScript integration, printed as they come; how many. */
async function typecheck(integrations: LoadedIntegration[]): Promise<number> {
  let count = 0;
  for (const integration of integrations) {
    const script = integration.manifest?.script;
    if (integration.status !== 'ready' || script === undefined || !TYPED_SCRIPT.test(script)) continue;
    const problems = await typecheckIntegration({
      dir: integration.dir,
      entry: path.resolve(integration.dir, script),
      jsxImportSource: JSX_IMPORT_SOURCE[integration.manifestKind ?? 'platform'],
    });
    for (const problem of problems) for (const line of typeProblemLines(problem)) process.stdout.write(`${line}\n`);
    count += problems.length;
  }
  return count;
}

export async function runCheck(request: { folders: string[]; types: boolean }): Promise<void> {
  const dirs =
    request.folders.length > 0
      ? request.folders
      : existsSync(DEFAULT_INTEGRATIONS_DIR)
        ? [DEFAULT_INTEGRATIONS_DIR]
        : [];
  if (dirs.length === 0)
    fail(
      `check needs at least one folder of integrations (./${DEFAULT_INTEGRATIONS_DIR} ` +
        `does not exist), e.g. ${commandLine('check', 'path/to/integrations')}`,
    );
  let firstParty: string[] = [];
  let firstPartyIntegrations: string[] = [];
  let known: string[] = [];
  try {
    const platform = loadPlatformData(SAMPLE_PLATFORM);
    firstParty = platform.firstPartyOrganizations;
    firstPartyIntegrations = platform.firstPartyIntegrations;
    known = platform.organizations.flatMap((org) => [org.id, org.subdomain]);
  } catch {
    // Without the default platform file, no organization is known: internal scopes are warnings.
  }
  const { env, defaulted } = withDevDefaults(process.env);
  // `check` judges the folders: whether an unknown organization is first-party is the host's call.
  const integrations = await loadIntegrations(dirs, {
    env,
    check: true,
    firstPartyOrganizations: firstParty,
    firstPartyIntegrations,
    knownOrganizations: known,
    devVars: true,
  });
  const note = describeDefaulted(
    defaulted,
    integrations.flatMap((integration) => Object.values(integration.manifest?.secrets ?? {})),
  );
  if (note !== undefined) process.stdout.write(`${note}\n`);
  for (const line of describeDevVars(integrations)) process.stdout.write(`${line}\n`);
  let errors = 0;
  for (const integration of integrations) {
    for (const line of reportLines(integration.errors, integration.warnings)) process.stdout.write(`${line}\n`);
    errors += integration.errors.length;
  }
  const typeErrors = request.types ? await typecheck(integrations) : 0;
  const invalid = integrations.filter((integration) => integration.status === 'invalid').length;
  const where = dirs.map((dir) => relative(process.cwd(), dir) || '.').join(', ');
  const types = request.types ? `, ${typeErrors} type error(s)` : ' (types not checked: --no-types)';
  process.stdout.write(
    `${integrations.length} integration(s) checked in ${where}: ${integrations.length - invalid} ` +
      `ready, ${invalid} invalid, ${errors} error(s)${types}\n`,
  );
  process.exit(errors + typeErrors > 0 ? 1 : 0);
}
