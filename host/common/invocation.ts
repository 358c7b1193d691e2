// How a message names a command for the person reading it: `npm run dev` in a clone of this
// repository, `npx integration-host dev` where the package is installed (its launcher says so).
// Wording only: never decides what runs.

// In a clone `npm test` is the repository's own suite: integrations' tests have a script of their own;
// `npm run publish` would be npm's own lifecycle name, so publishing an integration has its own too.
const CLONE_SCRIPTS = new Map([
  ['test', 'test:integrations'],
  ['publish', 'publish-integration'],
]);

/** `dev` + `--dir x` → `npm run dev -- --dir x`, or `npx integration-host dev --dir x` when installed. */
export function commandLine(command: string, args = ''): string {
  const installed = process.env.INTEGRATION_HOST_INVOCATION;
  if (installed) return `${installed} ${command}${args ? ` ${args}` : ''}`;
  return `npm run ${CLONE_SCRIPTS.get(command) ?? command}${args ? ` -- ${args}` : ''}`;
}
