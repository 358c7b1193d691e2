// `npm run check -- DIR...`: validates every manifest and bundles every script without serving,
// prints `path: /json/pointer: message` per problem and a summary, exits 1 on any error.

import { relative } from 'node:path';
import { describeDefaulted, withDevDefaults } from '../config/dev-env.ts';
import { formatProblem } from '../manifest/format.ts';
import { loadIntegrations } from '../manifest/load.ts';
import { loadPlatformData } from '../platform/data.ts';
import { WEBHOOK_INTEGRATION_NAME } from '../webhooks/config.ts';
import { fail } from './usage.ts';

export async function runCheck(args: string[]): Promise<void> {
  const dirs = args.filter((arg) => !arg.startsWith('-'));
  if (dirs.length === 0) fail('check needs at least one fixtures folder, e.g. npm run check -- fixtures/integrations');
  let firstParty: string[] = [];
  let known: string[] = [];
  try {
    const platform = loadPlatformData('fixtures/platform.yaml');
    firstParty = platform.firstPartyOrganizations;
    known = platform.organizations.flatMap((org) => [org.id, org.subdomain]);
  } catch {
    // Without the default platform file, no organization is known: internal scopes are warnings.
  }
  const { env, defaulted } = withDevDefaults(process.env);
  // `check` judges the folders: whether an unknown organization is first-party is the host's call.
  const integrations = await loadIntegrations(dirs, { env, check: true, firstPartyOrganizations: firstParty, knownOrganizations: known, reservedNames: [WEBHOOK_INTEGRATION_NAME] });
  const note = describeDefaulted(defaulted, integrations.flatMap((integration) => Object.values(integration.manifest?.secrets ?? {})));
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
