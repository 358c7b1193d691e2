// `npm run new -- <name> [--template blank|block|oauth|webhook-consumer] [--dir D] [--organization O]`:
// scaffolds a working integration (manifest, typed script, a test) into integrations/<name>/ and
// says what to run next. Bad input is one line naming the flag and what it expects.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HostError } from '../common/errors.ts';
import { loadPlatformData } from '../platform/data.ts';
import { DEFAULT_INTEGRATIONS_DIR } from './defaults.ts';
import { nameProblem, scaffold, TEMPLATES, type TemplateName } from './scaffold.ts';
import { fail } from './usage.ts';

const PLATFORM_FILE = fileURLToPath(new URL('../../fixtures/platform.yaml', import.meta.url));

function organizationFor(requested: string | undefined): string {
  let known: string[] = [];
  try {
    known = loadPlatformData(PLATFORM_FILE).organizations.flatMap((organization) => [organization.id]);
  } catch {
    // Without the platform file any organization is taken as given.
  }
  if (requested === undefined) return known[0] ?? 'acme';
  if (known.length > 0 && !known.includes(requested)) {
    throw new HostError('ERR_OPTIONS_INVALID', `--organization "${requested}" is not in the platform data, fixtures/platform.yaml (${known.join(', ')}): pass one of those`);
  }
  return requested;
}

export async function runNew(args: string[]): Promise<void> {
  const { values, positionals } = (() => {
    try {
      return parseArgs({ args, allowPositionals: true, options: { template: { type: 'string', default: 'blank' }, dir: { type: 'string' }, organization: { type: 'string' } } });
    } catch (error) {
      fail((error as Error).message);
    }
  })();
  if (positionals.length !== 1) fail(positionals.length === 0 ? 'new needs the integration name, e.g. npm run new -- greeter' : `new makes one integration at a time; got ${positionals.join(', ')}`);
  const name = positionals[0];
  const problem = nameProblem(name);
  if (problem !== null) fail(problem);
  if (!(TEMPLATES as readonly string[]).includes(values.template)) fail(`--template must be one of ${TEMPLATES.join(', ')} (got "${values.template}")`);
  const parent = values.dir ?? DEFAULT_INTEGRATIONS_DIR;
  const { folder, files } = await scaffold({ name, template: values.template as TemplateName, parent, organization: organizationFor(values.organization) });
  const shown = path.relative(process.cwd(), folder) || folder;
  const served = values.dir === undefined ? 'npm run dev' : `npm run dev -- --dir ${parent}`;
  process.stdout.write(
    [
      `created ${shown} from the ${values.template} template:`,
      ...files.map((file) => `  ${file.split(path.sep).join('/')}`),
      '',
      'next:',
      `  ${served.padEnd(44)}serves it, and reloads it on every save`,
      `  ${`npm run check -- ${shown}`.padEnd(44)}validates the manifest, bundles and type-checks`,
      `  ${`npm run logs -- ${name}`.padEnd(44)}follows its event log while npm run dev runs`,
      `  ${`node --test ${shown}/test/*.test.ts`.padEnd(44)}runs its test (all of them: npm run test:integrations)`,
      '',
    ].join('\n'),
  );
}
