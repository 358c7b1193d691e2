// Registered with `--import` by the launcher when this package lives under node_modules, where
// Node refuses to strip types: strips this package's own .ts files, and nobody else's.
// Never transforms code outside the package root, never changes what a module means.

import { readFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = new URL('../', import.meta.url).href;
const TYPESCRIPT = /\.(m?ts|tsx)$/;

registerHooks({
  load(url, context, nextLoad) {
    if (
      !url.startsWith(PACKAGE_ROOT) ||
      !TYPESCRIPT.test(url) ||
      url.slice(PACKAGE_ROOT.length).includes('node_modules/')
    ) {
      return nextLoad(url, context);
    }
    // 'strip' keeps every line and column where it was, so stack traces point into the source.
    const source = stripTypeScriptTypes(readFileSync(fileURLToPath(url), 'utf8'), { mode: 'strip', sourceUrl: url });
    return { format: 'module', source, shortCircuit: true };
  },
});
