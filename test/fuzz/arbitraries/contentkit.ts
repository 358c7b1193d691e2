// ContentKit element trees generated from the element table of host/contentkit/schema.ts, so
// every element and prop is reachable; `invalidTree` mutates them (mutate.ts) or is random JSON.

import fc from 'fast-check';
import type { SchemaObject } from 'ajv';
import { ELEMENTS, ELEMENT_TYPES } from '../../../host/contentkit/schema.ts';
import { jsonish } from './json.ts';
import { mutate, mutation } from './mutate.ts';

const DEPTH = { maxDepth: 4, depthSize: 'medium' as const, depthIdentifier: fc.createDepthIdentifier() };
const text = fc.string({ maxLength: 12 });
const nonEmpty = fc.string({ minLength: 1, maxLength: 12 });
const action = fc.record({ action: nonEmpty, id: fc.option(fc.integer(), { nil: undefined }) }, { requiredKeys: ['action'] });
const url = fc.record({ url: nonEmpty });

type Tie = (key: string) => fc.Arbitrary<unknown>;

function fromSchema(schema: SchemaObject, tie: Tie): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const name = String(schema.$ref).split('/').pop()!;
    if (name === 'children') return fc.oneof(DEPTH, fc.constant([]), text, fc.array(tie('node'), { maxLength: 3, depthIdentifier: DEPTH.depthIdentifier }));
    if (name === 'element') return fc.oneof(DEPTH, fc.constant({ type: 'divider' }), tie('element'));
    if (name === 'el_button') return elementOf('button', tie);
    if (name === 'action') return action;
    if (name === 'url') return url;
    if (name === 'selectOptions') return fc.oneof(fc.array(fc.record({ id: text, label: text }), { maxLength: 3 }), url);
    throw new Error(`no generator for ${name}`);
  }
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as SchemaObject[]).map((branch) => fromSchema(branch, tie)));
  if (schema.enum) return fc.constantFrom(...(schema.enum as string[]));
  if (Array.isArray(schema.type)) return fc.oneof(text, fc.integer(), fc.boolean());
  if (schema.type === 'array') return fc.array(fromSchema(schema.items as SchemaObject, tie), { maxLength: 2 });
  if (schema.type === 'string') return text;
  if (schema.type === 'boolean') return fc.boolean();
  if (schema.type === 'number') {
    const min = schema.exclusiveMinimum === 0 ? Number.MIN_VALUE : -1e9;
    return fc.double({ min, max: 1e9, noNaN: true });
  }
  throw new Error(`no generator for ${JSON.stringify(schema)}`);
}

function elementOf(type: string, tie: Tie): fc.Arbitrary<unknown> {
  const spec = ELEMENTS[type];
  const props: Record<string, fc.Arbitrary<unknown>> = { type: fc.constant(type) };
  for (const [name, schema] of Object.entries(spec.props)) props[name] = fromSchema(schema, tie);
  return fc.record(props, { requiredKeys: ['type', ...(spec.required ?? [])] });
}

/** Trees the validator must accept (JSON round-tripped, as they arrive from the sandbox). */
export const validTree: fc.Arbitrary<unknown> = fc
  .letrec((tie) => ({
    element: fc.oneof(...ELEMENT_TYPES.map((type) => elementOf(type, tie))),
    node: fc.oneof(DEPTH, text, tie('element')),
  }))
  .element.map((tree) => JSON.parse(JSON.stringify(tree)));

/** Mutated valid trees, unknown types and props, and plain random JSON. */
export const invalidTree: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(validTree, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([tree, ms]) => mutate(tree, ms)) },
  { weight: 1, arbitrary: fc.record({ type: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...ELEMENT_TYPES)) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: jsonish(4) },
).map((tree) => (tree === undefined ? null : JSON.parse(JSON.stringify(tree))));

/** A tree of `depth` nested blocks (or lone-child boxes), for the stack-exhaustion path. */
export function deepTree(depth: number, lone: boolean): unknown {
  let tree: unknown = { type: 'divider' };
  for (let i = 0; i < depth; i++) tree = lone ? { type: 'box', children: tree } : { type: 'block', children: [tree] };
  return tree;
}
