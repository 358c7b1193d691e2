// Cross-field manifest rules JSON Schema cannot express: unique block ids, `default` inside `enum`,
// `required` naming real properties, internal scopes, unknown top-level keys and accepted keys the
// host does not act on (warnings). Pure and defensive: runs even when the schema failed, so it
// must never assume a field has its right type.

import { INTERNAL_SCOPES } from './types.ts';
import { MANIFEST_KEYS } from './schema.ts';
import { didYouMean } from './suggest.ts';
import { escapePointer, type Issue } from './validate.ts';

export interface SemanticOptions {
  firstPartyOrganizations?: string[];
  /** Integrations named the platform's own, by manifest name: they get internal scopes whoever publishes them. */
  firstPartyIntegrations?: string[];
  /**
   * The organizations the platform data knows (ids and subdomains). Given only by `npm run check`,
   * which judges the folder, not the platform: an internal scope asked for by an organization the
   * data does not know is then a warning (whether it is first-party is decided where the host runs).
   */
  knownOrganizations?: string[];
}

export function checkSemantics(doc: Record<string, unknown>, options: SemanticOptions = {}): Issue[] {
  return [
    ...checkBlockIds(doc.blocks),
    ...checkConfigurations(doc.configurations),
    ...checkInternalScopes(doc, options).errors,
  ];
}

/** Warnings of the semantic checks (internal scopes of an organization the platform data does not know). */
export function semanticWarnings(doc: Record<string, unknown>, options: SemanticOptions = {}): Issue[] {
  return checkInternalScopes(doc, options).warnings;
}

const NOT_ACTED_ON = {
  target:
    'accepted but not acted on: this host does not restrict install targets ' +
    'yet (installations may target an organization, a space or a site)',
  componentId:
    'accepted: this host has no configuration screen of its own; the component renders through the render ' +
    "route with the props its caller passes and stores its configuration through GitBook's API, and the admin " +
    'PATCH has no properties to set at this level',
  urlUnfurl: 'accepted but not acted on: link unfurling is done by the documentation editor, not by this host',
  markdown:
    'accepted but not acted on: markdown code block conversion is done by the documentation editor, not by this host',
  blockIcon: 'accepted but not acted on: this host does not show block icons',
  envs: 'ignored: this host has no per-environment manifests; the top-level values apply',
  contentSources: 'accepted but not acted on: this host does not run content sources',
} as const;

/** Keys the schema accepts (GitBook's manifests use them) but the host does nothing with: one warning each. */
export function findUnusedKeys(doc: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const note = (pointer: string, message: string) => issues.push({ pointer, message });
  if (doc.target !== undefined) note('/target', NOT_ACTED_ON.target);
  if (Array.isArray(doc.blocks)) {
    doc.blocks.forEach((block, index) => {
      if (!isObject(block)) return;
      if (block.urlUnfurl !== undefined) note(`/blocks/${index}/urlUnfurl`, NOT_ACTED_ON.urlUnfurl);
      if (block.markdown !== undefined) note(`/blocks/${index}/markdown`, NOT_ACTED_ON.markdown);
      if (block.icon !== undefined) note(`/blocks/${index}/icon`, NOT_ACTED_ON.blockIcon);
    });
  }
  if (isObject(doc.configurations)) {
    for (const level of ['account', 'space', 'site'] as const) {
      const config = doc.configurations[level];
      if (isObject(config) && config.componentId !== undefined)
        note(`/configurations/${level}/componentId`, NOT_ACTED_ON.componentId);
    }
  }
  if (doc.contentSources !== undefined) note('/contentSources', NOT_ACTED_ON.contentSources);
  if (doc.envs !== undefined) note('/envs', NOT_ACTED_ON.envs);
  return issues;
}

/** Unknown top-level keys: reported, never silently dropped, never fatal (newer manifests may add keys). */
export function findUnknownKeys(doc: Record<string, unknown>): Issue[] {
  return Object.keys(doc)
    .filter((key) => !MANIFEST_KEYS.includes(key))
    .map((key) => ({
      pointer: `/${escapePointer(key)}`,
      message: `unknown key "${key}" (ignored${didYouMean(key, MANIFEST_KEYS)})`,
    }));
}

function checkBlockIds(blocks: unknown): Issue[] {
  if (!Array.isArray(blocks)) return [];
  const firstIndex = new Map<string, number>();
  const issues: Issue[] = [];
  blocks.forEach((block, index) => {
    const id = isObject(block) ? block.id : undefined;
    if (typeof id !== 'string') return;
    const first = firstIndex.get(id);
    if (first === undefined) firstIndex.set(id, index);
    else
      issues.push({
        pointer: `/blocks/${index}/id`,
        message: `duplicate block id "${id}" (also used by /blocks/${first})`,
      });
  });
  return issues;
}

function checkConfigurations(configurations: unknown): Issue[] {
  if (!isObject(configurations)) return [];
  const issues: Issue[] = [];
  for (const section of ['account', 'space', 'site'] as const) {
    const config = configurations[section];
    if (!isObject(config) || !isObject(config.properties)) continue;
    const base = `/configurations/${section}`;
    const properties = config.properties;
    for (const [name, property] of Object.entries(properties)) {
      if (!isObject(property) || property.type !== 'string') continue;
      const { enum: values, default: fallback } = property;
      if (Array.isArray(values) && typeof fallback === 'string' && !values.includes(fallback)) {
        issues.push({
          pointer: `${base}/properties/${escapePointer(name)}/default`,
          message: `default "${fallback}" is not one of the enum values (${values.join(', ')})`,
        });
      }
    }
    if (!Array.isArray(config.required)) continue;
    config.required.forEach((name, index) => {
      if (typeof name === 'string' && !Object.hasOwn(properties, name)) {
        issues.push({
          pointer: `${base}/required/${index}`,
          message: `"${name}" is not a property of configurations.${section}`,
        });
      }
    });
  }
  return issues;
}

function checkInternalScopes(
  doc: Record<string, unknown>,
  options: SemanticOptions,
): { errors: Issue[]; warnings: Issue[] } {
  const result: { errors: Issue[]; warnings: Issue[] } = { errors: [], warnings: [] };
  if (!Array.isArray(doc.scopes)) return result;
  const organization = typeof doc.organization === 'string' ? doc.organization : undefined;
  // The operator named it the platform's own, or it is published by a first-party organization.
  if (typeof doc.name === 'string' && (options.firstPartyIntegrations ?? []).includes(doc.name)) return result;
  // A manifest with no readable organization gets no internal scope either.
  if (organization !== undefined && (options.firstPartyOrganizations ?? []).includes(organization)) return result;
  const unknownToCheck =
    organization !== undefined &&
    options.knownOrganizations !== undefined &&
    !options.knownOrganizations.includes(organization);
  doc.scopes.forEach((scope, index) => {
    if (!(INTERNAL_SCOPES as readonly unknown[]).includes(scope)) return;
    const pointer = `/scopes/${index}`;
    if (unknownToCheck) {
      result.warnings.push({
        pointer,
        message:
          `scope "${String(scope)}" is internal: granted only if the host where it runs names it the platform's ` +
          `own (--first-party or firstPartyIntegrations) or organization "${organization}" is first-party there ` +
          `(the platform data checked here does not know it)`,
      });
    } else {
      result.errors.push({
        pointer,
        message:
          `scope "${String(scope)}" is internal and only granted to the platform's own ` +
          `integrations (--first-party or firstPartyIntegrations) and first-party organizations`,
      });
    }
  });
  return result;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
