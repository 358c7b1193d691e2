// Fills manifest `secrets` templates (`${{ env.NAME }}`): from the value the operator stored for
// the integration under NAME when there is one (the environment is then never read for it), else
// from the host's environment, reading only variables in the integration's own namespace
// (secret-namespace.ts). Never puts a secret value (resolved or literal) into a message, a warning
// or a log line: only key and variable names.

import { commandLine } from '../common/invocation.ts';
import type { Issue } from './validate.ts';
import { escapePointer } from './validate.ts';
import { isObject } from './semantic.ts';
import { namespaceProblem } from './secret-namespace.ts';

const TEMPLATE = /^\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;
/** A 1Password reference as GitBook's CLI reads it: `${{ op://vault/item/field }}`, optionally quoted. */
const ONE_PASSWORD = /^\$\{\{\s*(?:"op:\/\/[^"]+"|op:\/\/\S+)\s*\}\}$/;

/** A value the operator stored for the integration, or why this host cannot read it. */
export type StoredSecretValue = { value: string } | { problem: string };

/** Where a secret's value comes from (listings; never the value). */
export type SecretSource = 'store' | 'environment' | 'manifest' | 'missing';

/** The exact command that stores `variable` for `integration` (its value read from stdin). */
export function setSecretCommand(integration: string, variable: string): string {
  return commandLine('secrets', `set ${integration} ${variable}`);
}

export interface ResolvedSecrets {
  values: Record<string, string>;
  /** Secret key → the environment variable it was read from (for the cross-integration check). */
  variables: Record<string, string>;
  /** Secret key → the variable its template names (if any) and where its value comes from. */
  sources: Record<string, { variable?: string; source: SecretSource }>;
  errors: Issue[];
  warnings: Issue[];
}

/** Defined, not assigned: a manifest key named `__proto__` stays an own entry like any other. */
function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

export interface ResolveOptions {
  /** `npm run check`: problems of where a value comes from are warnings (see resolveSecrets). */
  unsetIsWarning?: boolean;
  /** The values the operator stored for this integration, by variable name (a host; never `check`). */
  stored?: ReadonlyMap<string, StoredSecretValue>;
  /**
   * The integration's `.dev.vars` as shown, when this load reads it (dev-vars.ts): an unset
   * variable's message then says it can go there.
   */
  devVarsFile?: string;
}

/**
 * `owner` is the integration's name: it decides which variables the templates may name and whose
 * stored secrets they are. With `unsetIsWarning` (`npm run check`, which judges the folder, not the
 * shell or the store of a host) an unset or empty variable, and one outside the namespace, which
 * only a host's secret store can provide, are warnings; where a host loads integrations they are
 * errors. `stored` values win over the environment, inside the namespace or outside it.
 */
export function resolveSecrets(
  secrets: unknown,
  env: Record<string, string | undefined>,
  owner: string,
  options: ResolveOptions = {},
): ResolvedSecrets {
  const result: ResolvedSecrets = { values: {}, variables: {}, sources: {}, errors: [], warnings: [] };
  if (!isObject(secrets)) return result; // absent, or a shape problem the schema reports
  const problem = (issue: Issue) => (options.unsetIsWarning ? result.warnings : result.errors).push(issue);
  for (const [key, raw] of Object.entries(secrets)) {
    if (typeof raw !== 'string') continue;
    const pointer = `/secrets/${escapePointer(key)}`;
    const template = TEMPLATE.exec(raw.trim());
    if (template) {
      const variable = template[1];
      const command = setSecretCommand(owner, variable);
      const stored = options.stored?.get(variable);
      if (stored !== undefined) {
        setOwn(result.sources, key, { variable, source: 'store' });
        if ('value' in stored) setOwn(result.values, key, stored.value);
        else
          problem({
            pointer,
            message:
              `secret "${key}" reads ${variable} from this host's secret ` +
              `store, where its value cannot be read: ${stored.problem}`,
          });
        continue;
      }
      setOwn(result.sources, key, { variable, source: 'missing' });
      // Checked before the variable is even looked at: whether it is set is none of its business.
      const outside = namespaceProblem(variable, owner);
      if (outside !== null) {
        problem({
          pointer,
          message: options.unsetIsWarning
            ? `secret "${key}" reads ${variable}, which a host never takes from its environment (${outside}): ` +
              `store it for this integration with ${command} (the value is read from stdin); the host will ` +
              `refuse to load the integration until it is stored`
            : `secret "${key}" cannot read ${variable}: ${outside}; store it for this ` +
              `integration instead: ${command} (the value is read from stdin)`,
        });
        continue;
      }
      setOwn(result.variables, key, variable);
      const value = Object.hasOwn(env, variable) ? env[variable] : undefined;
      // Where a development value can go, when this load reads the folder's `.dev.vars`.
      const devVars = options.devVarsFile === undefined ? '' : `put ${variable}=<value> in ${options.devVarsFile}`;
      const unset = (why: string) =>
        options.unsetIsWarning
          ? result.warnings.push({
              pointer,
              message:
                `secret "${key}" needs environment variable ${variable}, which ${why}: the host will refuse to ` +
                `load the integration until it is set ` +
                `(${devVars ? `${devVars} for ${commandLine('dev')}, or stored` : 'or stored'} ` +
                `with ${command})`,
            })
          : result.errors.push({
              pointer,
              message:
                `secret "${key}" needs environment variable ${variable}, which ${why} ` +
                `(${devVars ? `${devVars}, or store it` : 'or store it'}: ${command})`,
            });
      if (value === undefined) {
        unset('is not set');
      } else if (value === '') {
        // An empty client secret is always a misconfiguration; failing here beats a 401 at runtime.
        unset('is empty');
      } else {
        setOwn(result.values, key, value);
        setOwn(result.sources, key, { variable, source: 'environment' });
      }
    } else if (ONE_PASSWORD.test(raw.trim())) {
      // The host has no 1Password client: the secret is left out (never passed on as the literal
      // reference, which the integration would take for a credential). Not fatal: the folder is fine.
      setOwn(result.sources, key, { source: 'missing' });
      result.warnings.push({
        pointer,
        message:
          `secret "${key}" is a 1Password reference (op://…), which this host does not resolve: ` +
          `it is left unset; export the value and write \${{ env.NAME }} to provide it`,
      });
    } else if (raw.includes('${{')) {
      // A half-written template must not be shipped to the integration as if it were the secret.
      setOwn(result.sources, key, { source: 'missing' });
      result.errors.push({
        pointer,
        message: `secret "${key}" has a malformed template; write it as \${{ env.NAME }}`,
      });
    } else {
      setOwn(result.values, key, raw);
      setOwn(result.sources, key, { source: 'manifest' });
      result.warnings.push({
        pointer,
        message:
          `secret "${key}" is written literally in the manifest; secrets ` +
          `should come from the environment (\${{ env.NAME }})`,
      });
    }
  }
  return result;
}
