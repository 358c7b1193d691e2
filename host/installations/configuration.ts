// Plans one configuration edit (docs/installations.md): merge the patch (null unsets), re-apply defaults,
// validate against the target's schema, and decide the status. The one rule set shared by the
// admin PATCH and the integration's own PATCH (OAuth); pure: it never stores nor emits events.

import type { ErrorDetail } from '../common/errors.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { Installation, InstallationStatus } from './model.ts';
import { checkConfiguration, invalidConfiguration } from './configuration-schema.ts';
import { applyDefaults, configurationSchemaFor, isComponentLevel, statusFor } from './plan.ts';

/**
 * Who edits. An admin sets ordinary properties only; button properties hold what the button's
 * flow (OAuth) stored, so only the installation itself may write them.
 */
export type EditSource = 'admin' | 'integration';

export interface EditOptions {
  /** GitBook's PATCH: the patch is the whole new configuration (what it leaves out is unset). */
  replace?: boolean;
  /**
   * GitBook's PATCH also keeps keys the manifest does not declare (integrations store their own
   * data beside their properties, e.g. Jira's sites); declared properties are still validated.
   */
  keepUndeclared?: boolean;
}

export interface PlannedConfiguration {
  status: InstallationStatus;
  configuration: Record<string, unknown>;
}

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Built-in integrations carry their own rules (e.g. the webhook's `events` list, which manifests cannot express). */
function planBuiltinEdit(
  integration: LoadedIntegration,
  installation: Installation,
  patch: Record<string, unknown>,
): PlannedConfiguration {
  const builtin = integration.builtin!;
  const configuration: Record<string, unknown> = { ...installation.configuration };
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete configuration[name];
    // defineProperty, not `=`: a "__proto__" key must stay an own (refused) key, never become the
    // prototype the checks would then read `url` and `events` from.
    else Object.defineProperty(configuration, name, { value, enumerable: true, writable: true, configurable: true });
  }
  const problems = builtin.checkConfiguration(configuration, installation.target);
  if (problems.length > 0) throw invalidConfiguration(problems);
  return { configuration, status: builtin.isComplete(configuration) ? 'active' : 'pending' };
}

/** A component-configured level, written by the integration: any JSON object, as its component decides. */
function planComponentEdit(
  installation: Installation,
  patch: Record<string, unknown>,
  replace: boolean,
): PlannedConfiguration {
  const configuration: Record<string, unknown> = replace ? {} : { ...installation.configuration };
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete configuration[name];
    else Object.defineProperty(configuration, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return { configuration, status: 'active' };
}

export function planConfigurationEdit(
  integration: LoadedIntegration,
  installation: Installation,
  patch: Record<string, unknown>,
  source: EditSource,
  options: EditOptions = {},
): PlannedConfiguration {
  if (integration.builtin !== undefined) return planBuiltinEdit(integration, installation, patch);
  if (source === 'integration' && isComponentLevel(integration, installation.target))
    return planComponentEdit(installation, patch, options.replace === true);
  const schema = configurationSchemaFor(integration, installation.target);
  const properties = schema?.properties ?? {};
  const refused: ErrorDetail[] = [];
  // Keys the manifest no longer declares are dropped rather than blocking every later edit.
  const next: Record<string, unknown> = options.replace
    ? {}
    : Object.fromEntries(
        Object.entries(installation.configuration).filter(([name]) => Object.hasOwn(properties, name)),
      );
  const undeclared: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(patch)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property === undefined && options.keepUndeclared) {
      if (value !== null)
        Object.defineProperty(undeclared, name, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    if (property === undefined) {
      refused.push({ pointer: `/${escapeToken(name)}`, message: 'is not a property of this configuration' });
      continue;
    }
    if (property.type === 'button' && source === 'admin') {
      refused.push({
        pointer: `/${escapeToken(name)}`,
        message: `is set by its button (callback_url ${property.callback_url}), not by PATCH`,
      });
      continue;
    }
    if (value === null) delete next[name];
    else next[name] = value;
  }
  const configuration = applyDefaults(schema, next);
  const problems = [...refused, ...checkConfiguration(integration, installation.target, configuration)];
  if (problems.length > 0) throw invalidConfiguration(problems);
  return { configuration: { ...undeclared, ...configuration }, status: statusFor(schema, configuration) };
}
