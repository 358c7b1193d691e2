// Where this package lives (a clone, or node_modules/integration-host where installed) and what
// it ships that the host reads at run time: its platform data and its version. Paths only.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The platform data this package comes with (its organizations, users and spaces). */
export const SAMPLE_PLATFORM = path.join(PACKAGE_ROOT, 'fixtures', 'platform.yaml');

let version: string | undefined;

/** package.json's version, read once per process. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  return version;
}
