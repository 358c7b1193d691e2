// The runtime's urlpattern module, loaded into an isolate only when a guest first touches the
// URLPattern global (modules.ts): urlpattern-polyfill, which follows the URL Pattern standard and
// parses through the runtime's own URL class (the module scope's `URL`). Never in the snapshot.
import { URLPattern } from 'urlpattern-polyfill/urlpattern';

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface UrlPatternDeps {}

export function createUrlPattern(_deps: UrlPatternDeps) {
  return { URLPattern };
}

export type UrlPatternExports = ReturnType<typeof createUrlPattern>;

export default createUrlPattern;
