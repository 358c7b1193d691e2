// Where the commands look by default: `new` writes integrations into ./integrations, `dev`,
// `check` and `test` read it; `host` serves the sample integrations in a clone of the repository.
// Names and paths only.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_INTEGRATIONS_DIR = 'integrations';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The platform data this package comes with (its organizations, users and spaces): every command's default. */
export const SAMPLE_PLATFORM = path.join(PACKAGE_ROOT, 'fixtures', 'platform.yaml');

/** `host` without --dir: the repository's sample integrations when run in its clone, else ./integrations. */
export function defaultHostDirs(cwd = process.cwd()): string[] {
  const samples = path.join(PACKAGE_ROOT, 'fixtures', 'integrations');
  return path.resolve(cwd) === path.resolve(PACKAGE_ROOT) && existsSync(samples) ? ['fixtures/integrations'] : [DEFAULT_INTEGRATIONS_DIR];
}
