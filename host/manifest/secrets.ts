// Fills manifest `secrets` templates (`${{ env.NAME }}`) from the host's environment, reading only
// variables in the integration's own namespace (secret-namespace.ts). Never puts a secret value
// (resolved or literal) into a message, a warning or a log line: only key and variable names.

import type { Issue } from './validate.ts';
import { escapePointer } from './validate.ts';
import { isObject } from './semantic.ts';
import { namespaceProblem } from './secret-namespace.ts';

const TEMPLATE = /^\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;
/** A 1Password reference as GitBook's CLI reads it: `${{ op://vault/item/field }}`, optionally quoted. */
const ONE_PASSWORD = /^\$\{\{\s*(?:"op:\/\/[^"]+"|op:\/\/\S+)\s*\}\}$/;

export interface ResolvedSecrets {
  values: Record<string, string>;
  /** Secret key → the environment variable it was read from (for the cross-integration check). */
  variables: Record<string, string>;
  errors: Issue[];
  warnings: Issue[];
}

/**
 * `owner` is the integration's name: it decides which variables the templates may name. With
 * `unsetIsWarning` (`npm run check`, which judges the folder, not the shell it runs in) an unset or
 * empty variable is a warning; where the host loads integrations it is an error.
 */
export function resolveSecrets(
  secrets: unknown,
  env: Record<string, string | undefined>,
  owner: string,
  options: { unsetIsWarning?: boolean } = {},
): ResolvedSecrets {
  const result: ResolvedSecrets = { values: {}, variables: {}, errors: [], warnings: [] };
  if (!isObject(secrets)) return result; // absent, or a shape problem the schema reports
  for (const [key, raw] of Object.entries(secrets)) {
    if (typeof raw !== 'string') continue;
    const pointer = `/secrets/${escapePointer(key)}`;
    const template = TEMPLATE.exec(raw.trim());
    if (template) {
      const variable = template[1];
      // Checked before the variable is even looked at: whether it is set is none of its business.
      const outside = namespaceProblem(variable, owner);
      if (outside !== null) {
        result.errors.push({ pointer, message: `secret "${key}" cannot read ${variable}: ${outside}` });
        continue;
      }
      result.variables[key] = variable;
      const value = Object.hasOwn(env, variable) ? env[variable] : undefined;
      const unset = (why: string) =>
        options.unsetIsWarning
          ? result.warnings.push({ pointer, message: `secret "${key}" needs environment variable ${variable}, which ${why}: the host will refuse to load the integration until it is set` })
          : result.errors.push({ pointer, message: `secret "${key}" needs environment variable ${variable}, which ${why}` });
      if (value === undefined) {
        unset('is not set');
      } else if (value === '') {
        // An empty client secret is always a misconfiguration; failing here beats a 401 at runtime.
        unset('is empty');
      } else {
        result.values[key] = value;
      }
    } else if (ONE_PASSWORD.test(raw.trim())) {
      // The host has no 1Password client: the secret is left out (never passed on as the literal
      // reference, which the integration would take for a credential). Not fatal: the folder is fine.
      result.warnings.push({
        pointer,
        message: `secret "${key}" is a 1Password reference (op://…), which this host does not resolve: it is left unset; export the value and write \${{ env.NAME }} to provide it`,
      });
    } else if (raw.includes('${{')) {
      // A half-written template must not be shipped to the integration as if it were the secret.
      result.errors.push({ pointer, message: `secret "${key}" has a malformed template; write it as \${{ env.NAME }}` });
    } else {
      result.values[key] = raw;
      result.warnings.push({
        pointer,
        message: `secret "${key}" is written literally in the manifest; secrets should come from the environment (\${{ env.NAME }})`,
      });
    }
  }
  return result;
}
