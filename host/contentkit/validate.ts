// Host-side ContentKit validation: the render route's last check before a component's output
// reaches a client. Compiled once; must never throw on any input, only report.

import { Ajv, type ErrorObject } from 'ajv';
import { CONTENTKIT_SCHEMA } from './schema.ts';

export interface ContentKitError {
  pointer: string;
  message: string;
}

export type ContentKitResult = { valid: true } | { valid: false; errors: ContentKitError[] };

// verbose: errors carry their parentSchema, which tells "not an element" apart from other type errors.
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
const ELEMENT_SCHEMA = (CONTENTKIT_SCHEMA.definitions as Record<string, unknown>).element;
const validateElement = ajv.compile(CONTENTKIT_SCHEMA);

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The `type` of the element at a JSON pointer, to name it in messages. */
function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

function typeAt(root: unknown, pointer: string): string | undefined {
  const type = (valueAt(root, pointer) as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}

/** null: the error repeats another one and is left out. */
function describe(error: ErrorObject, root: unknown): ContentKitError | null {
  const params = error.params as Record<string, unknown>;
  const at = error.instancePath;
  const element = typeAt(root, at);
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapeToken(String(params.missingProperty))}`, message: element ? `is required on <${element}>` : 'is required' };
    case 'additionalProperties':
      return { pointer: `${at}/${escapeToken(String(params.additionalProperty))}`, message: element ? `is not a prop of <${element}>` : 'is not allowed here' };
    case 'enum': {
      const value = valueAt(root, at);
      if (error.schemaPath.endsWith('/properties/type/enum')) {
        // A non-string type already has its "must be string"; only name unknown strings here.
        return typeof value === 'string' ? { pointer: at, message: `unknown element type "${value}"` } : null;
      }
      return { pointer: at, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    }
    case 'type':
      if (error.parentSchema === ELEMENT_SCHEMA) return { pointer: at, message: 'must be an element (an object with a "type")' };
      return { pointer: at, message: error.message ?? 'has the wrong type' };
    default:
      return { pointer: at, message: error.message ?? 'is invalid' };
  }
}

export function validateContentKit(element: unknown): ContentKitResult {
  try {
    if (validateElement(element)) return { valid: true };
  } catch {
    // Only a tree deep enough to exhaust the stack gets here.
    return { valid: false, errors: [{ pointer: '', message: 'the element tree is nested too deeply' }] };
  }
  const seen = new Set<string>();
  const errors: ContentKitError[] = [];
  // if/then/else add a summary error ("must match then schema") beside the real one; drop it.
  for (const error of validateElement.errors ?? []) {
    if (error.keyword === 'if') continue;
    const described = describe(error, element);
    if (!described) continue;
    const key = `${described.pointer}\n${described.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      errors.push(described);
    }
  }
  return { valid: false, errors };
}
