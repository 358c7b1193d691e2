// Creating installations: checks the target against the platform data and the manifest's
// visibility, applies configuration defaults and decides the first status. Never dispatches
// events itself (the caller emits installation_setup) and never returns secrets.

import { randomUUID } from 'node:crypto';
import { sameBytes } from '../common/same-bytes.ts';
import { HostError } from '../common/errors.ts';
import type { ConfigurationSchema, LoadedIntegration } from '../manifest/types.ts';
import type { CreateInstallationInput, Installation, InstallationStatus } from './model.ts';
import { findOrganization, type PlatformData } from '../platform-data/data.ts';

/** The manifest's configuration level of a target (either form): see configurationSchemaFor. */
function levelFor(integration: LoadedIntegration, target: Installation['target']) {
  const configurations = integration.manifest?.configurations;
  return target === 'organization'
    ? configurations?.account
    : target === 'space'
      ? (configurations?.space ?? configurations?.site)
      : configurations?.site;
}

/**
 * The configuration schema of a target: `account` for organization installations, `space` for
 * space installations (falling back to `site`, which configured space installations before GitBook's
 * `space` level was used), `site` for site installations.
 */
export function configurationSchemaFor(
  integration: LoadedIntegration,
  target: Installation['target'],
): ConfigurationSchema | undefined {
  const level = levelFor(integration, target);
  // A level configured by a component (`componentId`, GitBook's form) has no property schema here.
  return level !== undefined && 'properties' in level ? level : undefined;
}

/**
 * Whether a target's configuration is GitBook's component form (`{ componentId }`): the
 * integration's own component decides its shape, so only the integration itself writes it, with
 * any keys (docs/installations.md).
 */
export function isComponentLevel(integration: LoadedIntegration, target: Installation['target']): boolean {
  const level = levelFor(integration, target);
  return level !== undefined && 'componentId' in level;
}

export function applyDefaults(
  schema: ConfigurationSchema | undefined,
  configuration: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if ('default' in property && property.default !== undefined) result[name] = property.default;
  }
  return { ...result, ...configuration };
}

/** `active` once every required property has a value; `pending` before (docs/installations.md). */
export function statusFor(
  schema: ConfigurationSchema | undefined,
  configuration: Record<string, unknown>,
): InstallationStatus {
  // Own properties only: a required property named "constructor" is not set by Object.prototype.
  const missing = (schema?.required ?? []).filter(
    (name) => !Object.hasOwn(configuration, name) || configuration[name] === undefined || configuration[name] === '',
  );
  return missing.length === 0 ? 'active' : 'pending';
}

function newInstallationId(): string {
  return `inst_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
}

/**
 * The organization installation a space or site installation goes under when its organization has
 * none of this integration yet: configured by `configurations.account` (defaults applied), selecting
 * the child's space (a site's parent selects no space: it covers its site installation only through
 * that installation).
 */
export function planOrganizationParent(integration: LoadedIntegration, child: Installation): Installation {
  const schema = configurationSchemaFor(integration, 'organization');
  const configuration = applyDefaults(schema, {});
  return {
    id: newInstallationId(),
    integration: child.integration,
    organization: child.organization,
    target: 'organization',
    status: statusFor(schema, configuration),
    configuration,
    externalIds: [],
    spaceSelection: child.target === 'space' && child.space !== undefined ? [child.space] : [],
    createdAt: child.createdAt,
    updatedAt: child.createdAt,
  };
}

/**
 * A new installation, and for a space or site installation of a non-built-in integration the
 * organization installation to create if its organization has none yet (`parent`).
 */
export interface PlannedInstallation {
  installation: Installation;
  parent?: Installation;
}

export function planInstallation(
  platform: PlatformData,
  integration: LoadedIntegration,
  input: CreateInstallationInput,
  installLink: string,
): PlannedInstallation {
  const manifest = integration.manifest;
  if (integration.status !== 'ready' || manifest === undefined) {
    throw new HostError(
      'ERR_INTEGRATION_INVALID',
      `integration "${integration.name}" is invalid and cannot be installed`,
    );
  }
  if (integration.builtin !== undefined && !integration.builtin.targets.includes(input.target)) {
    throw new HostError(
      'ERR_VALIDATION',
      `/target: integration "${integration.name}" installs on ${integration.builtin.targets.join(' or ')} only`,
      [{ pointer: '/target', message: `must be one of ${integration.builtin.targets.join(', ')}` }],
    );
  }
  const organization = findOrganization(platform, input.organization);
  if (organization === undefined)
    throw new HostError('ERR_NOT_FOUND', `organization "${input.organization}" not found`);
  const owner = findOrganization(platform, manifest.organization);
  const sameOrganization = owner?.id === organization.id;
  if (manifest.visibility === 'private' && !sameOrganization) {
    throw new HostError(
      'ERR_VISIBILITY_DENIED',
      `integration "${integration.name}" is private to organization "${manifest.organization}"`,
    );
  }
  if (
    manifest.visibility === 'unlisted' &&
    !sameOrganization &&
    !(input.installLink && sameBytes(installLink, input.installLink))
  ) {
    throw new HostError(
      'ERR_VISIBILITY_DENIED',
      `integration "${integration.name}" is unlisted: installing it needs its install link`,
    );
  }
  if (input.target === 'space') {
    const space = platform.spaces.find((candidate) => candidate.id === input.space);
    if (space === undefined || space.organization !== organization.id)
      throw new HostError('ERR_NOT_FOUND', `space "${input.space}" not found in organization "${organization.id}"`);
  }
  if (input.target === 'site') {
    const site = platform.sites.find((candidate) => candidate.id === input.site);
    if (site === undefined || site.organization !== organization.id)
      throw new HostError('ERR_NOT_FOUND', `site "${input.site}" not found in organization "${organization.id}"`);
  }
  let spaceSelection: Installation['spaceSelection'];
  if (input.target === 'organization') {
    spaceSelection = input.space_selection ?? 'all';
    if (spaceSelection !== 'all') {
      for (const spaceId of spaceSelection) {
        const space = platform.spaces.find((candidate) => candidate.id === spaceId);
        if (space === undefined || space.organization !== organization.id)
          throw new HostError(
            'ERR_NOT_FOUND',
            `space "${spaceId}" in space_selection not found in organization "${organization.id}"`,
          );
      }
    }
  } else if (input.space_selection !== undefined) {
    throw new HostError('ERR_VALIDATION', '/space_selection: only organization installations select spaces', [
      { pointer: '/space_selection', message: 'only for target "organization"' },
    ]);
  }
  const schema = configurationSchemaFor(integration, input.target);
  const configuration = integration.builtin ? {} : applyDefaults(schema, {});
  const createdAt = new Date().toISOString();
  const installation: Installation = {
    id: newInstallationId(),
    integration: integration.name,
    organization: organization.id,
    target: input.target,
    ...(input.target === 'space' ? { space: input.space } : {}),
    ...(input.target === 'site' ? { site: input.site } : {}),
    status: integration.builtin
      ? integration.builtin.isComplete(configuration)
        ? 'active'
        : 'pending'
      : statusFor(schema, configuration),
    configuration,
    externalIds: [],
    ...(spaceSelection !== undefined ? { spaceSelection } : {}),
    createdAt,
    updatedAt: createdAt,
  };
  // The built-in webhook is host code configured per space or site: it has no organization level.
  if (input.target === 'organization' || integration.builtin !== undefined) return { installation };
  return { installation, parent: planOrganizationParent(integration, installation) };
}
