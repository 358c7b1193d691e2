// The sandbox-api modules the runtime provides to every integration bundle instead of a copy
// bundled into each (host/manifest/containment.ts resolves these specifiers to a stub reading this
// table): sandbox-api's public exports only, as plain frozen objects, hardened with the realm
// (install.ts, snapshot.ts). Nothing here may import the runtime's own modules or hold a bridge.
import * as sandboxApi from '../index.ts';
import * as jsxRuntime from '../jsx-runtime.ts';
import * as jsxDevRuntime from '../jsx-dev-runtime.ts';

/**
 * A module namespace as a frozen null-prototype object of data properties: the exports' values,
 * never the bundler's getters (a getter is a function of this bundle, closing over its scope).
 */
function plainModule(namespace: object): Readonly<Record<string, unknown>> {
  const module: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(namespace)) module[name] = (namespace as Record<string, unknown>)[name];
  return Object.freeze(module);
}

/**
 * Specifier → module. Only these three: 'sandbox-api' and its JSX runtimes. Deep paths
 * ('sandbox-api/webhook-receiver', …) are still bundled into the integration, as before; a module
 * with state of its own (the webhook receiver's key cache) is never shared this way.
 */
export const PROVIDED_MODULES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Readonly<Record<string, unknown>>>, {
    'sandbox-api': plainModule(sandboxApi),
    'sandbox-api/jsx-runtime': plainModule(jsxRuntime),
    'sandbox-api/jsx-dev-runtime': plainModule(jsxDevRuntime),
  }),
);
