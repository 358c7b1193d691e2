// Turns ajv's errors for a ContentKit value into the problems a person would name, one per real
// problem at a JSON pointer: each element judged by the element its `type` says it is, an element
// that does not belong where it stands named as such, alternatives of one value merged. Pure.

import type { ErrorObject, ValidateFunction } from 'ajv';

export interface ContentKitError {
  pointer: string;
  message: string;
}

/** The spec's ContentKit elements: validators by type tag, and type tag → schema name. */
export interface ElementIndex {
  elements: Map<string, ValidateFunction>;
  tags: Map<string, string>;
}

export function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

function typeOf(value: unknown): string | undefined {
  const type = (value as { type?: unknown } | null)?.type;
  return typeof value === 'object' && value !== null && typeof type === 'string' ? type : undefined;
}

function under(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || pointer.startsWith(`${ancestor}/`);
}

function article(type: string): string {
  return type === 'null' ? 'null' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

function joinTypes(types: Iterable<string>): string {
  return [...new Set(types)].join(', ');
}

/** The element tags a union schema admits (its oneOf members' `type`), for "expected …" messages. */
function unionTags(schema: unknown, tags: Map<string, string>): string[] {
  const members = (schema as { oneOf?: { $ref?: string }[] } | null)?.oneOf ?? [];
  const names = new Map([...tags].map(([tag, name]) => [name, tag]));
  return members.flatMap((member) => {
    const name = member.$ref?.split('/').pop();
    const tag = name === undefined ? undefined : names.get(name);
    return tag === undefined ? [] : [tag];
  });
}

/**
 * Turns ajv's errors (all of them, every union member's included) into the problems a person
 * would name: per element, the errors of the element its `type` says it is; an element whose type
 * does not fit where it stands named as such; alternatives of one value merged into one message.
 */
export function describeErrors(errors: ErrorObject[], root: unknown, c: ElementIndex, base = ''): ContentKitError[] {
  let remaining = errors.filter((error) => error.keyword !== 'if');
  const out: ContentKitError[] = [];
  // Elements that union members disagree about: the enum errors on their `type` mark them.
  const tried = new Map<string, string[]>();
  for (const error of remaining) {
    if (error.keyword !== 'enum' || !error.instancePath.endsWith('/type')) continue;
    const at = error.instancePath.slice(0, -'/type'.length);
    if (typeOf(valueAt(root, at)) === undefined) continue;
    tried.set(at, [...(tried.get(at) ?? []), ...((error.params as { allowedValues: string[] }).allowedValues ?? [])]);
  }
  for (const at of [...tried.keys()].sort((a, b) => a.length - b.length)) {
    if (!remaining.some((error) => under(error.instancePath, at))) continue; // handled with an ancestor
    const value = valueAt(root, at);
    const type = typeOf(value)!;
    const expected = tried.get(at)!;
    remaining = remaining.filter((error) => !under(error.instancePath, at));
    const own = c.elements.get(type);
    if (own === undefined) {
      out.push({ pointer: `${base}${at}/type`, message: `unknown element type "${type}"` });
    } else if (!own(value)) {
      // Judged as what it says it is: its own problems, not every other member's.
      out.push(...describeErrors(own.errors ?? [], value, c, `${base}${at}`));
    } else {
      out.push({
        pointer: `${base}${at}/type`,
        message: `<${type}> is not allowed here (expected ${joinTypes(expected)})`,
      });
    }
  }
  /** Alternatives one value failed (`type` and `enum` of a oneOf's members), merged into one message. */
  const alternatives = new Map<string, string[]>();
  const addAlternative = (at: string, text: string) => alternatives.set(at, [...(alternatives.get(at) ?? []), text]);
  for (const error of remaining) {
    const at = error.instancePath;
    const params = error.params as Record<string, unknown>;
    const element = typeOf(valueAt(root, at));
    // Summaries of alternatives whose real problem is reported at or below them.
    if (
      (error.keyword === 'oneOf' || error.keyword === 'anyOf') &&
      remaining.some((other) => other !== error && under(other.instancePath, at))
    )
      continue;
    switch (error.keyword) {
      case 'discriminator': {
        const tag = params.tagValue;
        if (params.error === 'mapping' && typeof tag === 'string') {
          const allowed = unionTags(error.parentSchema, c.tags);
          out.push({
            pointer: `${base}${at}/type`,
            message: c.tags.has(tag)
              ? `<${tag}> is not allowed here (expected ${joinTypes(allowed)})`
              : `unknown element type "${tag}"`,
          });
        } else out.push({ pointer: `${base}${at}`, message: 'must be an element (an object with a string "type")' });
        break;
      }
      case 'required': {
        const missing = String(params.missingProperty);
        out.push({
          pointer: `${base}${at}/${escapeToken(missing)}`,
          message: element ? `is required on <${element}>` : 'is required',
        });
        break;
      }
      case 'type': {
        const isUnion = (error.parentSchema as { discriminator?: unknown } | undefined)?.discriminator !== undefined;
        if (isUnion)
          out.push({ pointer: `${base}${at}`, message: 'must be an element (an object with a string "type")' });
        else addAlternative(at, article(String(params.type)));
        break;
      }
      case 'enum':
        addAlternative(at, `one of: ${(params.allowedValues as unknown[]).join(', ')}`);
        break;
      case 'additionalProperties':
        out.push({
          pointer: `${base}${at}/${escapeToken(String(params.additionalProperty))}`,
          message: element ? `is not a prop of <${element}>` : 'is not allowed here',
        });
        break;
      case 'oneOf':
        out.push({ pointer: `${base}${at}`, message: 'must match exactly one of its allowed forms' });
        break;
      default:
        out.push({ pointer: `${base}${at}`, message: error.message ?? 'is invalid' });
    }
  }
  for (const [at, forms] of alternatives) {
    // A value shaped like one alternative whose real problem is deeper needs no "must be a string".
    const deeper = [
      ...out.map((error) => error.pointer),
      ...remaining.map((error) => `${base}${error.instancePath}`),
    ].some((pointer) => pointer.startsWith(`${base}${at}/`));
    if (deeper && forms.every((form) => !form.startsWith('one of'))) continue;
    const unique = [...new Set(forms)];
    out.push({
      pointer: `${base}${at}`,
      message: `must be ${unique.length === 1 ? unique[0] : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`}`,
    });
  }
  return out;
}
