// The host's version as package.json states it, for the OpenAPI document's `info.version`. Read
// once per process; never on a request.

import { readFileSync } from 'node:fs';

let version: string | undefined;

export function hostVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
