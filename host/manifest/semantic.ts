// Cross-field manifest rules JSON Schema cannot express: unique block ids, `default` inside `enum`,
// `required` naming real properties, internal scopes, unknown top-level keys (warnings). Pure and
// defensive: runs even when the schema failed, so it must never assume a field has its right type.

import { INTERNAL_SCOPES } from './types.ts';
import { MANIFEST_KEYS } from './schema.ts';
import { escapePointer, type Issue } from './validate.ts';

export interface SemanticOptions {
  firstPartyOrganizations?: string[];
}

export function checkSemantics(doc: Record<string, unknown>, options: SemanticOptions = {}): Issue[] {
  return [
    ...checkBlockIds(doc.blocks),
    ...checkConfigurations(doc.configurations),
    ...checkInternalScopes(doc, options.firstPartyOrganizations ?? []),
  ];
}

/** Unknown top-level keys: reported, never silently dropped, never fatal (newer manifests may add keys). */
export function findUnknownKeys(doc: Record<string, unknown>): Issue[] {
  return Object.keys(doc)
    .filter((key) => !MANIFEST_KEYS.includes(key))
    .map((key) => ({ pointer: `/${escapePointer(key)}`, message: `unknown key "${key}" (ignored)` }));
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
    else issues.push({ pointer: `/blocks/${index}/id`, message: `duplicate block id "${id}" (also used by /blocks/${first})` });
  });
  return issues;
}

function checkConfigurations(configurations: unknown): Issue[] {
  if (!isObject(configurations)) return [];
  const issues: Issue[] = [];
  for (const section of ['account', 'site'] as const) {
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

function checkInternalScopes(doc: Record<string, unknown>, firstParty: string[]): Issue[] {
  if (!Array.isArray(doc.scopes)) return [];
  // A manifest with no readable organization gets no internal scope either.
  if (typeof doc.organization === 'string' && firstParty.includes(doc.organization)) return [];
  const issues: Issue[] = [];
  doc.scopes.forEach((scope, index) => {
    if ((INTERNAL_SCOPES as readonly unknown[]).includes(scope)) {
      issues.push({
        pointer: `/scopes/${index}`,
        message: `scope "${String(scope)}" is internal and only granted to first-party organizations`,
      });
    }
  });
  return issues;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
