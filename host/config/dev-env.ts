// Development defaults for environment variables the bundled fixtures read, so `npm run host` and
// `npm run check` work from a clean shell. Applied by the CLI only, to unset (or empty) variables;
// it never overrides what the user exported and never applies to createHost() called from code.

/** oauth-demo's client and provider: the loopback test provider of fixtures/oauth-provider/provider.ts. */
export const DEV_ENV_DEFAULTS: Readonly<Record<string, string>> = {
  OAUTH_DEMO_CLIENT_ID: 'oauth-demo-dev-client',
  OAUTH_DEMO_CLIENT_SECRET: 'oauth-demo-dev-secret',
  OAUTH_DEMO_AUTHORIZE_URL: 'http://127.0.0.1:8788/authorize',
  OAUTH_DEMO_TOKEN_URL: 'http://127.0.0.1:8788/token',
};

export function withDevDefaults(env: Record<string, string | undefined>): { env: Record<string, string | undefined>; defaulted: string[] } {
  const defaulted = Object.keys(DEV_ENV_DEFAULTS).filter((name) => env[name] === undefined || env[name] === '');
  return { env: { ...env, ...Object.fromEntries(defaulted.map((name) => [name, DEV_ENV_DEFAULTS[name]])) }, defaulted };
}

export function describeDefaulted(defaulted: string[]): string | undefined {
  if (defaulted.length === 0) return undefined;
  return `dev defaults for unset ${defaulted.join(', ')} (oauth-demo talks to the loopback provider: node_modules/.bin/node fixtures/oauth-provider/provider.ts; export them to use another)`;
}
