// The compiler settings `npm run check` type-checks an integration with: generated, hermetic (no
// tsconfig of the user or the repository is read, no @types are picked up), shaped like the
// isolate (ES2022 and the web-worker globals, no DOM, no Node) with sandbox-api's declared types.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Module names whose types come from this repository rather than from the integration's own
 * node_modules: specifier → files, as tsconfig `paths` takes them (absolute).
 */
export const TYPE_PATHS: Readonly<Record<string, string[]>> = {
  'sandbox-api': [path.join(REPO_ROOT, 'sandbox-api/index.ts')],
  'sandbox-api/*': [path.join(REPO_ROOT, 'sandbox-api/*.ts'), path.join(REPO_ROOT, 'sandbox-api/*')],
};

/** The tsconfig (as JSON) that checks `entry` and everything it imports, and nothing else. */
export function typecheckConfig(entry: string): Record<string, unknown> {
  return {
    compilerOptions: {
      target: 'es2022',
      module: 'esnext',
      moduleResolution: 'bundler',
      // The isolate offers ECMAScript and web-worker-like globals (fetch, Request, crypto, …).
      lib: ['es2022', 'webworker'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      isolatedModules: true,
      resolveJsonModule: true,
      jsx: 'react-jsx',
      jsxImportSource: 'sandbox-api',
      paths: TYPE_PATHS,
    },
    files: [entry],
  };
}
