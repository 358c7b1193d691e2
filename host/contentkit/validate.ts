// Host-side ContentKit validation: what a component renders is checked against GitBook's own
// ContentKit schemas (spec.ts) with ajv before it reaches a client, and ajv's errors become one
// message per real problem at a JSON pointer. Compiled on first use; bounded in depth and size
// before ajv runs; must never throw on any input, only report.

import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { checkBounds } from './bounds.ts';
import { describeErrors, type ContentKitError } from './describe-errors.ts';
import { loadGitBookSpec } from './spec.ts';

export type { ContentKitError } from './describe-errors.ts';
export { MAX_DEPTH, MAX_VALUES } from './bounds.ts';

export type ContentKitResult = { valid: true } | { valid: false; errors: ContentKitError[] };

/** Problems reported for one output: the first ones in document order. */
const MAX_ERRORS = 50;

const REF_PREFIX = 'openapi.json#/components/schemas/';

interface Compiled {
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
    if (
      name.startsWith('ContentKit') &&
      Array.isArray(tag) &&
      tag.length === 1 &&
      typeof tag[0] === 'string' &&
      !name.startsWith('ContentKitRenderOutput')
    )
      tags.set(tag[0], name);
  }
  const get = (name: string): ValidateFunction => {
    const validate = ajv.getSchema(`${REF_PREFIX}${name}`);
    if (!validate) throw new Error(`the GitBook spec has no schema ${name}`);
    return validate;
  };
  return {
    rootElement: get('ContentKitRootElement'),
    outputElement: get('ContentKitRenderOutputElement'),
    outputComplete: get('ContentKitRenderOutputComplete'),
    elements: new Map([...tags].map(([tag, name]) => [tag, get(name)])),
    tags,
  };
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
