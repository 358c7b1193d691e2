// The names GitBook's runtime (Cloudflare Workers) provides as globals, read from the declarations
// of @cloudflare/workers-types in this repository's node_modules: a ReferenceError for one of them
// in an integration is the host's gap, not the integration's bug.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export function workersGlobals(): Set<string> {
  const file = createRequire(import.meta.url).resolve('@cloudflare/workers-types/index.d.ts');
  const text = readFileSync(file, 'utf8');
  return new Set(
    [...text.matchAll(/^declare (?:var|const|let|function|class|abstract class) ([A-Za-z_$][\w$]*)/gm)].map(
      (match) => match[1],
    ),
  );
}
