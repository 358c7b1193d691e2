// Development JSX entry (esbuild `jsxDev`): same output as jsx-runtime, the extra source/self
// arguments are ignored.
import { jsx } from './jsx-runtime.ts';

export { Fragment, jsx, jsxs, type JSX } from './jsx-runtime.ts';

export function jsxDEV(
  type: Parameters<typeof jsx>[0],
  props: Parameters<typeof jsx>[1],
  key?: unknown,
): ReturnType<typeof jsx> {
  return jsx(type, props, key);
}
