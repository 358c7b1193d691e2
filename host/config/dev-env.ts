// Development defaults for environment variables the bundled fixtures read, so `npm run host` and
// `npm run check` work from a clean shell. Applied by the CLI only, to unset (or empty) variables;
// it never overrides what the user exported and never applies to createHost() called from code.

/**
 * The clients and provider of oauth-demo and of the GitBook-format space-digest: the loopback test
 * provider of fixtures/oauth-provider/provider.ts (one client, shared by both).
 */
export const DEV_ENV_DEFAULTS: Readonly<Record<string, string>> = {
  OAUTH_DEMO_CLIENT_ID: 'oauth-demo-dev-client',
  OAUTH_DEMO_CLIENT_SECRET: 'oauth-demo-dev-secret',
  OAUTH_DEMO_AUTHORIZE_URL: 'http://127.0.0.1:8788/authorize',
  OAUTH_DEMO_TOKEN_URL: 'http://127.0.0.1:8788/token',
  SPACE_DIGEST_CLIENT_ID: 'oauth-demo-dev-client',
  SPACE_DIGEST_CLIENT_SECRET: 'oauth-demo-dev-secret',
  SPACE_DIGEST_AUTHORIZE_URL: 'http://127.0.0.1:8788/authorize',
  SPACE_DIGEST_TOKEN_URL: 'http://127.0.0.1:8788/token',
};

export function withDevDefaults(env: Record<string, string | undefined>): {
  env: Record<string, string | undefined>;
  defaulted: string[];
} {
  const defaulted = Object.keys(DEV_ENV_DEFAULTS).filter((name) => env[name] === undefined || env[name] === '');
  return { env: { ...env, ...Object.fromEntries(defaulted.map((name) => [name, DEV_ENV_DEFAULTS[name]])) }, defaulted };
}

/**
 * The line saying which defaults are in use, or nothing when no loaded integration reads any of
 * them: `secretTemplates` are the loaded manifests' `secrets` values (`${{ env.NAME }}`).
 */
export function describeDefaulted(defaulted: string[], secretTemplates: string[]): string | undefined {
  const named = new Set(
    secretTemplates.flatMap((template) =>
      [...template.matchAll(/env\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]),
    ),
  );
  const used = defaulted.filter((name) => named.has(name));
  if (used.length === 0) return undefined;
  return (
    `dev defaults for unset ${used.join(', ')} (oauth-demo and space-digest talk to the ` +
    `loopback provider of a clone's npm run provider; export them to use another)`
  );
}

/** One line per integration whose secrets were filled in from its `.dev.vars` (names only, never values). */
export function describeDevVars(
  integrations: { name: string; devVars?: { file: string; variables: string[] } }[],
): string[] {
  return integrations.flatMap((integration) =>
    integration.devVars
      ? [
          `dev values for ${integration.name}'s ${integration.devVars.variables.join(', ')} ` +
            `from ${integration.devVars.file} (exported variables win)`,
        ]
      : [],
  );
}
