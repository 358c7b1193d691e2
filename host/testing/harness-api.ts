// What authors' tests see of the test harness (`integration-host/testing`): types only, importing
// nothing of the host, so an author's `tsc` reads this file and not the host's sources.
// harness.ts implements exactly this signature (the compiler holds it to it).

export interface HarnessOptions {
  /** Hosts or CIDRs the integration's fetch may reach although not public (a local fake API). */
  allowEgress?: string[];
  /** Extra environment variables (secrets); `.dev.vars` fills what stays unset. */
  env?: Record<string, string>;
}

export interface IntegrationHarness {
  /** The host's base URL (loopback, a free port). */
  url: string;
  /** The integration's name (from its manifest). */
  name: string;
  /** Its installation made at start (organization level, in its manifest's organization). */
  installationId: string;
  /** That installation's public endpoint. */
  endpoint: string;
  /** A request to the public endpoint; `subpath` is appended to it (`/oauth`, `?q=1`). */
  fetch(subpath?: string, init?: RequestInit): Promise<Response>;
  /** A request to the host's admin API (`/v1/...`), JSON bodies welcome. */
  admin(route: string, init?: RequestInit): Promise<Response>;
  /** The host's log lines so far (the integration's console output included). */
  logs(): string[];
  close(): Promise<void>;
}

/** Starts a host serving the integration in `folder`; throws with every problem if it does not load. */
export declare function startIntegration(folder: string, options?: HarnessOptions): Promise<IntegrationHarness>;
