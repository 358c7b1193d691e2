// Host-side ContentKit validation: what a component renders is checked against GitBook's own
// ContentKit schemas (spec.ts) with ajv before it reaches a client, and ajv's errors become one
// message per real problem at a JSON pointer. Compiled on first use; bounded in depth and size
// before ajv runs; must never throw on any input, only report.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadGitBookSpec } from './spec.ts';

export interface ContentKitError {
  pointer: string;
  message: string;
}

export type ContentKitResult = { valid: true } | { valid: false; errors: ContentKitError[] };

/** JSON nesting the validator accepts (an element level is two: the element and its `children`). */
export const MAX_DEPTH = 100;
/** Values (objects, arrays and leaves) the validator accepts in one output. */
export const MAX_VALUES = 50_000;
/** Problems reported for one output: the first ones in document order. */
const MAX_ERRORS = 50;

const REF_PREFIX = 'openapi.json#/components/schemas/';

interface Compiled {
  ajv: Ajv;
  rootElement: ValidateFunction;
  outputElement: ValidateFunction;
  outputComplete: ValidateFunction;
  /** Element type tag (`button`) → its schema's validator, for re-checking one element alone. */
  elements: Map<string, ValidateFunction>;
  /** Element type tag → the ContentKit schema name (`ContentKitButton`). */
  tags: Map<string, string>;
}

let compiled: Compiled | undefined;

function compile(): Compiled {
  const document = loadGitBookSpec();
  // strict: false, as the document carries OpenAPI keywords (example, deprecated, x-*) ajv does not
  // know; discriminator: true makes the three discriminated unions report one error, not one per member.
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, discriminator: true });
  addFormats.default(ajv);
  // Formats of the document that JSON Schema does not define: any string is accepted.
  ajv.addFormat('emoji', true).addFormat('icon', true);
  ajv.addSchema(document, 'openapi.json');
  const tags = new Map<string, string>();
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    const tag = (schema as { properties?: { type?: { enum?: unknown[] } } }).properties?.type?.enum;
    if (name.startsWith('ContentKit') && Array.isArray(tag) && tag.length === 1 && typeof tag[0] === 'string' && !name.startsWith('ContentKitRenderOutput')) tags.set(tag[0], name);
  }
  const get = (name: string): ValidateFunction => {
    const validate = ajv.getSchema(`${REF_PREFIX}${name}`);
    if (!validate) throw new Error(`the GitBook spec has no schema ${name}`);
    return validate;
  };
  return {
    ajv,
    rootElement: get('ContentKitRootElement'),
    outputElement: get('ContentKitRenderOutputElement'),
    outputComplete: get('ContentKitRenderOutputComplete'),
    elements: new Map([...tags].map(([tag, name]) => [tag, get(name)])),
    tags,
  };
}

function escapeToken(token: string): string {
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

/** A tree too deep or too large is refused before ajv sees it (ajv recurses per level). */
function checkBounds(root: unknown): ContentKitError | null {
  const pending: [unknown, string, number][] = [[root, '', 0]];
  let values = 0;
  while (pending.length > 0) {
    const [value, pointer, depth] = pending.pop()!;
    if (++values > MAX_VALUES) return { pointer: '', message: `has more than ${MAX_VALUES} values` };
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) return { pointer, message: `is nested deeper than ${MAX_DEPTH} levels` };
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (const [key, item] of entries) pending.push([item, `${pointer}/${escapeToken(key)}`, depth + 1]);
  }
  return null;
}

/**
 * Turns ajv's errors (all of them, every union member's included) into the problems a person
 * would name: per element, the errors of the element its `type` says it is; an element whose type
 * does not fit where it stands named as such; alternatives of one value merged into one message.
 */
function describeErrors(errors: ErrorObject[], root: unknown, c: Compiled, base = ''): ContentKitError[] {
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
      out.push({ pointer: `${base}${at}/type`, message: `<${type}> is not allowed here (expected ${joinTypes(expected)})` });
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
    if ((error.keyword === 'oneOf' || error.keyword === 'anyOf') && remaining.some((other) => other !== error && under(other.instancePath, at))) continue;
    switch (error.keyword) {
      case 'discriminator': {
        const tag = params.tagValue;
        if (params.error === 'mapping' && typeof tag === 'string') {
          const allowed = unionTags(error.parentSchema, c.tags);
          out.push({
            pointer: `${base}${at}/type`,
            message: c.tags.has(tag) ? `<${tag}> is not allowed here (expected ${joinTypes(allowed)})` : `unknown element type "${tag}"`,
          });
        } else out.push({ pointer: `${base}${at}`, message: 'must be an element (an object with a string "type")' });
        break;
      }
      case 'required': {
        const missing = String(params.missingProperty);
        out.push({ pointer: `${base}${at}/${escapeToken(missing)}`, message: element ? `is required on <${element}>` : 'is required' });
        break;
      }
      case 'type': {
        const isUnion = (error.parentSchema as { discriminator?: unknown } | undefined)?.discriminator !== undefined;
        if (isUnion) out.push({ pointer: `${base}${at}`, message: 'must be an element (an object with a string "type")' });
        else addAlternative(at, article(String(params.type)));
        break;
      }
      case 'enum':
        addAlternative(at, `one of: ${(params.allowedValues as unknown[]).join(', ')}`);
        break;
      case 'additionalProperties':
        out.push({ pointer: `${base}${at}/${escapeToken(String(params.additionalProperty))}`, message: element ? `is not a prop of <${element}>` : 'is not allowed here' });
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
    const deeper = [...out.map((error) => error.pointer), ...remaining.map((error) => `${base}${error.instancePath}`)].some((pointer) => pointer.startsWith(`${base}${at}/`));
    if (deeper && forms.every((form) => !form.startsWith('one of'))) continue;
    const unique = [...new Set(forms)];
    out.push({ pointer: `${base}${at}`, message: `must be ${unique.length === 1 ? unique[0] : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`}` });
  }
  return out;
}

function result(validate: ValidateFunction, value: unknown, c: Compiled): ContentKitResult {
  const bound = checkBounds(value);
  if (bound !== null) return { valid: false, errors: [bound] };
  try {
    if (validate(value)) return { valid: true };
  } catch {
    // Only a value deep enough to exhaust the stack could get here, and checkBounds stops those.
    return { valid: false, errors: [{ pointer: '', message: 'could not be validated' }] };
  }
  const seen = new Set<string>();
  const errors = describeErrors(validate.errors ?? [], value, c)
    .sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0))
    .filter((error) => {
      const key = `${error.pointer}\n${error.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    });
  return { valid: false, errors: errors.slice(0, MAX_ERRORS) };
}

/** A root element (`block`, `modal` or `configuration`); pointers are relative to it. */
export function validateContentKit(element: unknown): ContentKitResult {
  compiled ??= compile();
  return result(compiled.rootElement, element, compiled);
}

/**
 * A whole render answer (`ContentKitRenderOutput`): `{ type: 'element', element, state, props }` or
 * `{ type: 'complete', returnValue? }`. Pointers are relative to the answer (`/element/children/0`).
 */
export function validateRenderOutput(output: unknown): ContentKitResult {
  compiled ??= compile();
  const complete = (output as { type?: unknown } | null)?.type === 'complete';
  return result(complete ? compiled.outputComplete : compiled.outputElement, output, compiled);
}
