// Where the commands look by default: `new` writes integrations into ./integrations, `dev`,
// `check` and `test` read it; `host` serves the sample integrations in a clone of the repository.
// Names and paths only.

import { PACKAGE_ROOT, SAMPLE_PLATFORM } from '../common/package-root.ts';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_INTEGRATIONS_DIR = 'integrations';

export { SAMPLE_PLATFORM };

/** `host` without --dir: the repository's sample integrations when run in its clone, else ./integrations. */
export function defaultHostDirs(cwd = process.cwd()): string[] {
  const samples = path.join(PACKAGE_ROOT, 'fixtures', 'integrations');
  return path.resolve(cwd) === path.resolve(PACKAGE_ROOT) && existsSync(samples)
    ? ['fixtures/integrations']
    : [DEFAULT_INTEGRATIONS_DIR];
}
