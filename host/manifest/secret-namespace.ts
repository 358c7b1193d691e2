// Which host environment variables an integration's `secrets` may read: its own `<NAME>_…` only
// (`oauth-demo` → `OAUTH_DEMO_…`), never `HOST_…`, never one a loaded integration with a longer
// name owns (`oauth` cannot read `OAUTH_DEMO_…`). Pure; never sees a variable's value.

/** The prefix of the variables an integration named `name` may read. */
export function envPrefixOf(name: string): string {
  return `${name.toUpperCase().replace(/-/g, '_')}_`;
}

/** Why `variable` is outside the namespace of integration `name`, or null. */
export function namespaceProblem(variable: string, name: string): string | null {
  if (variable.startsWith('HOST_')) return `${variable} is one of the host's own variables`;
  const prefix = envPrefixOf(name);
  if (!variable.startsWith(prefix) || variable.length === prefix.length)
    return `an integration named "${name}" may only read variables named ${prefix}…, not ${variable}`;
  return null;
}

/** The loaded integration whose namespace `variable` belongs to (longest matching prefix), if any. */
export function ownerOf(variable: string, names: readonly string[]): string | undefined {
  let owner: string | undefined;
  for (const name of names) {
    const prefix = envPrefixOf(name);
    if (
      variable.startsWith(prefix) &&
      variable.length > prefix.length &&
      (owner === undefined || prefix.length > envPrefixOf(owner).length)
    )
      owner = name;
  }
  return owner;
}
