// Fills manifest `secrets` templates (`${{ env.NAME }}`) from the host's environment. Never puts a
// secret value (resolved or literal) into a message, a warning or a log line: only key and variable names.

import type { Issue } from './validate.ts';
import { escapePointer } from './validate.ts';
import { isObject } from './semantic.ts';

const TEMPLATE = /^\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

export interface ResolvedSecrets {
  values: Record<string, string>;
  errors: Issue[];
  warnings: Issue[];
}

export function resolveSecrets(secrets: unknown, env: Record<string, string | undefined>): ResolvedSecrets {
  const result: ResolvedSecrets = { values: {}, errors: [], warnings: [] };
  if (!isObject(secrets)) return result; // absent, or a shape problem the schema reports
  for (const [key, raw] of Object.entries(secrets)) {
    if (typeof raw !== 'string') continue;
    const pointer = `/secrets/${escapePointer(key)}`;
    const template = TEMPLATE.exec(raw.trim());
    if (template) {
      const variable = template[1];
      const value = Object.hasOwn(env, variable) ? env[variable] : undefined;
      if (value === undefined) {
        result.errors.push({ pointer, message: `secret "${key}" needs environment variable ${variable}, which is not set` });
      } else if (value === '') {
        // An empty client secret is always a misconfiguration; failing here beats a 401 at runtime.
        result.errors.push({ pointer, message: `secret "${key}" needs environment variable ${variable}, which is empty` });
      } else {
        result.values[key] = value;
      }
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
