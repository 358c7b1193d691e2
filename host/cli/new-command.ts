// `new <name> [--template blank|block|oauth|webhook-consumer] [--dir D] [--organization O]`:
// scaffolds a working integration (manifest, typed script, a test, a tsconfig) into integrations/<name>/ and
// says what to run next. Bad input is one line naming the flag and what it expects.

import path from 'node:path';
import { HostError } from '../common/errors.ts';
import { loadPlatformData } from '../platform-data/data.ts';
import { commandLine } from '../common/invocation.ts';
import { DEFAULT_INTEGRATIONS_DIR, SAMPLE_PLATFORM } from './defaults.ts';
import { nameProblem, scaffold, TEMPLATES, type TemplateName } from './scaffold.ts';
import { fail } from './usage.ts';

function organizationFor(requested: string | undefined): string {
  let known: string[] = [];
  try {
    known = loadPlatformData(SAMPLE_PLATFORM).organizations.flatMap((organization) => [organization.id]);
  } catch {
    // Without the platform file any organization is taken as given.
  }
  if (requested === undefined) return known[0] ?? 'acme';
  if (known.length > 0 && !known.includes(requested)) {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `--organization "${requested}" is not in the platform data (${known.join(', ')}): pass one of those`,
    );
  }
  return requested;
}

export async function runNew(request: {
  name: string;
  template: string;
  dir: string;
  organization?: string;
}): Promise<void> {
  const { name, template, dir } = request;
  const problem = nameProblem(name);
  if (problem !== null) fail(problem);
  if (!(TEMPLATES as readonly string[]).includes(template))
    fail(`--template must be one of ${TEMPLATES.join(', ')} (got "${template}")`);
  const { folder, files } = await scaffold({
    name,
    template: template as TemplateName,
    parent: dir,
    organization: organizationFor(request.organization),
  });
  const shown = path.relative(process.cwd(), folder) || folder;
  const served = dir === DEFAULT_INTEGRATIONS_DIR ? commandLine('dev') : commandLine('dev', `--dir ${dir}`);
  const steps: [string, string][] = [
    [served, 'serves it, and reloads it on every save'],
    [commandLine('check', shown), 'validates the manifest, bundles and type-checks'],
    [commandLine('test', shown), 'runs its test'],
    [commandLine('logs', name), `follows its event log while ${commandLine('dev')} runs`],
  ];
  const width = Math.max(...steps.map(([command]) => command.length)) + 2;
  process.stdout.write(
    [
      `created ${shown} from the ${template} template:`,
      ...files.map((file) => `  ${file.split(path.sep).join('/')}`),
      '',
      'next:',
      ...steps.map(([command, what]) => `  ${command.padEnd(width)}${what}`),
      '',
    ].join('\n'),
  );
}
