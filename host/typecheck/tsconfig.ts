// The compiler settings `npm run check` type-checks an integration with: generated, hermetic (no
// tsconfig of the user or the repository is read, no @types are picked up), shaped like the
// isolate (ES2024 and the web-worker globals, no DOM, no Node) with sandbox-api's declared types.

import { PACKAGE_ROOT } from '../common/package-root.ts';
import path from 'node:path';

/**
 * Module names whose types come from this repository rather than from the integration's own
 * node_modules: specifier → files, as tsconfig `paths` takes them (absolute).
 */
export const TYPE_PATHS: Readonly<Record<string, string[]>> = {
  'sandbox-api': [path.join(PACKAGE_ROOT, 'sandbox-api/index.ts')],
  'sandbox-api/*': [path.join(PACKAGE_ROOT, 'sandbox-api/*.ts'), path.join(PACKAGE_ROOT, 'sandbox-api/*')],
};

/**
 * Declarations every check gets: the bundler's text imports, and the isolate's globals where they differ from
 * lib.webworker.
 */
const TEXT_IMPORTS = path.join(PACKAGE_ROOT, 'host/typecheck/text-imports.d.ts');
const RUNTIME_GLOBALS = path.join(PACKAGE_ROOT, 'host/typecheck/runtime-globals.d.ts');

export interface TypecheckTarget {
  /** The integration folder: its own `*.d.ts` files are part of its types (node_modules aside). */
  dir: string;
  /** The script, absolute. */
  entry: string;
  /** Where JSX comes from: `sandbox-api`, or `@gitbook/runtime` for gitbook-manifest.yaml folders. */
  jsxImportSource: string;
}

/**
 * The tsconfig (as JSON) that checks the entry and everything it imports, with the folder's own
 * declaration files, and nothing else.
 */
export function typecheckConfig({ dir, entry, jsxImportSource }: TypecheckTarget): Record<string, unknown> {
  return {
    compilerOptions: {
      target: 'es2022',
      module: 'esnext',
      moduleResolution: 'bundler',
      // The isolate offers ECMAScript (V8 of Node 24: ES2024 and more, e.g. Array#findLast,
      // Object.groupBy) and web-worker-like globals (fetch, Request, crypto, …).
      lib: ['es2024', 'webworker'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      isolatedModules: true,
      resolveJsonModule: true,
      jsx: 'react-jsx',
      jsxImportSource,
      paths: TYPE_PATHS,
    },
    files: [entry, TEXT_IMPORTS, RUNTIME_GLOBALS],
    include: [path.join(dir, '**/*.d.ts')],
    exclude: [path.join(dir, '**/node_modules')],
  };
}
