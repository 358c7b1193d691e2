// ContentKit trees generated from GitBook's own ContentKit schemas (the patched spec the host
// validates against), so every element, prop and alternative is reachable; `invalidTree` mutates
// them (mutate.ts) or is random JSON. Covers the JSON Schema subset the ContentKit schemas use.

import fc from 'fast-check';
import { loadGitBookSpec } from '../../../host/contentkit/spec.ts';
import { jsonish } from './json.ts';
import { mutate, mutation } from './mutate.ts';

type Schema = Record<string, any>;
const SCHEMAS = loadGitBookSpec().components.schemas as Record<string, Schema>;
const depthIdentifier = fc.createDepthIdentifier();
const DEPTH = { maxDepth: 4, depthSize: 'small' as const, depthIdentifier };
const text = fc.string({ maxLength: 12 });

const refName = (schema: Schema): string | undefined =>
  typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;

/** 0 for alternatives that cannot recurse (chosen first once the depth budget is spent), 1 otherwise. */
function recursion(schema: Schema, seen = new Set<string>()): number {
  const name = refName(schema);
  if (name !== undefined) {
    if (seen.has(name)) return 1;
    return recursion(SCHEMAS[name], new Set([...seen, name]));
  }
  const parts = [
    ...(schema.oneOf ?? []),
    ...(schema.anyOf ?? []),
    ...Object.values(schema.properties ?? {}),
    schema.items,
    schema.additionalProperties,
  ].filter((part): part is Schema => typeof part === 'object' && part !== null);
  return parts.some(
    (part) =>
      recursion(part, seen) > 0 ||
      (refName(part) !== undefined &&
        refName(part)!.startsWith('ContentKit') &&
        SCHEMAS[refName(part)!].properties?.children),
  )
    ? 1
    : 0;
}

type Tie = (name: string) => fc.Arbitrary<unknown>;

function fromSchema(schema: Schema, tie: Tie): fc.Arbitrary<unknown> {
  const name = refName(schema);
  if (name !== undefined) return tie(name);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) {
    const ordered = [...(alternatives as Schema[])].sort((a, b) => recursion(a) - recursion(b));
    return fc.oneof(DEPTH, ...ordered.map((branch) => fromSchema(branch, tie)));
  }
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'string':
      return schema.format === 'uri' ? fc.webUrl() : fc.string({ maxLength: Math.min(schema.maxLength ?? 12, 12) });
    case 'number':
      return fc.double({ min: -1e6, max: 1e6, noNaN: true });
    case 'integer':
      return fc.integer();
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(schema.items as Schema, tie), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
        depthIdentifier,
      });
    case 'object':
    case undefined: {
      const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
      const extra = schema.additionalProperties;
      if (properties.length === 0) {
        if (typeof extra === 'object' && extra !== null)
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fromSchema(extra, tie), {
            maxKeys: 2,
            depthIdentifier,
          });
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), text, { maxKeys: 2 });
      }
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, part] of properties) record[key] = fromSchema(part, tie);
      return fc.record(record, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      throw new Error(`no generator for ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

/** Every schema name reachable from the roots, for fc.letrec. */
function reachable(roots: string[]): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const name = refName(value as Schema);
    if (name !== undefined && !found.has(name)) {
      found.add(name);
      visit(SCHEMAS[name]);
    }
    Object.values(value).forEach(visit);
  };
  roots.forEach((root) => visit({ $ref: `#/components/schemas/${root}` }));
  return [...found];
}

const arbitraries = fc.letrec((tie) =>
  Object.fromEntries(reachable(['ContentKitRootElement']).map((name) => [name, fromSchema(SCHEMAS[name], tie)])),
);

/**
 * Root elements (`block`, `modal`, `configuration`) the validator must accept, JSON round-tripped as they arrive from
 * the sandbox.
 */
export const validTree: fc.Arbitrary<unknown> = arbitraries.ContentKitRootElement.map((tree) =>
  JSON.parse(JSON.stringify(tree)),
);

const ELEMENT_TYPES = Object.values(SCHEMAS).flatMap((schema) =>
  schema.properties?.type?.enum?.length === 1 ? [String(schema.properties.type.enum[0])] : [],
);

/** Mutated valid trees, unknown types and props, and plain random JSON. */
export const invalidTree: fc.Arbitrary<unknown> = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(validTree, fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([tree, ms]) => mutate(tree, ms)),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        { type: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...ELEMENT_TYPES)), children: fc.constant([]) },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: jsonish(4) },
  )
  .map((tree) => (tree === undefined ? null : JSON.parse(JSON.stringify(tree))));

/** A tree of `depth` nested boxes in a block (or stacks), for the depth bound. */
export function deepTree(depth: number, stacks: boolean): unknown {
  let tree: unknown = { type: 'divider' };
  for (let i = 0; i < depth; i++) tree = { type: stacks ? 'vstack' : 'box', children: [tree] };
  return { type: 'block', children: [tree] };
}

/** A tree with one defect the validator must report, and the JSON pointer it must report it at. */
export interface BrokenTree {
  tree: unknown;
  defect: string;
  pointer: string;
}

type Path = (string | number)[];

/** Element type tag (`button`) → its schema in GitBook's spec (`ContentKitButton`). */
const ELEMENT_SCHEMAS = new Map(
  Object.entries(SCHEMAS).flatMap(([name, schema]) =>
    name.startsWith('ContentKit') &&
    !name.startsWith('ContentKitRenderOutput') &&
    schema.properties?.type?.enum?.length === 1
      ? [[String(schema.properties.type.enum[0]), schema] as const]
      : [],
  ),
);

/** Paths of every element (an object whose `type` names one) in a valid tree. */
function elementPaths(value: unknown, prefix: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => elementPaths(item, [...prefix, index]));
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own = typeof record.type === 'string' && ELEMENT_SCHEMAS.has(record.type) ? [prefix] : [];
  return [...own, ...Object.entries(record).flatMap(([key, item]) => elementPaths(item, [...prefix, key]))];
}

const pointerOf = (path: Path): string =>
  path.map((token) => `/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** Props whose schema is one plain JSON type (or an enum of strings): an object there is a type error at that prop. */
function typedProps(schema: Schema): string[] {
  return Object.entries((schema.properties ?? {}) as Record<string, Schema>)
    .filter(
      ([name, part]) =>
        name !== 'type' &&
        (['string', 'number', 'integer', 'boolean', 'array'].includes(part.type) || Array.isArray(part.enum)),
    )
    .map(([name]) => name);
}

const defect = fc.record({
  element: fc.nat(),
  kind: fc.constantFrom('unknown-type', 'missing-required', 'wrong-type'),
  pick: fc.nat(),
  name: fc.stringMatching(/^[a-zA-Z~/_-]{1,10}$/),
  value: jsonish(2),
});

/**
 * One targeted defect in one element of a valid tree, with the pointer of the error it must cause:
 * an unknown `type` (at its `type`), a missing required prop (at that prop) or a prop of the wrong
 * JSON type (at that prop). GitBook's schemas allow props they do not name, so an extra prop is no
 * defect. Unlike `invalidTree`, every value here is invalid for certain.
 */
export const brokenTree: fc.Arbitrary<BrokenTree> = fc
  .tuple(validTree, defect)
  .map(([valid, { element, kind, pick, name, value }]) => {
    const tree = structuredClone(valid);
    const paths = elementPaths(tree);
    const path = paths[element % paths.length];
    const target = path.reduce<any>((node, token) => node[token], tree) as Record<string, unknown>;
    const type = String(target.type);
    const schema = ELEMENT_SCHEMAS.get(type)!;
    const required = ((schema.required ?? []) as string[]).filter((prop) => prop !== 'type');
    const typed = typedProps(schema);
    if (kind === 'missing-required' && required.length > 0) {
      const prop = required[pick % required.length];
      delete target[prop];
      return { tree, defect: `missing ${prop} on <${type}>`, pointer: pointerOf([...path, prop]) };
    }
    if (kind === 'wrong-type' && typed.length > 0) {
      const prop = typed[pick % typed.length];
      target[prop] = { wrong: value ?? null };
      return { tree, defect: `object as ${prop} of <${type}>`, pointer: pointerOf([...path, prop]) };
    }
    // unknown-type, and the fallback of the two kinds above for elements without such props.
    target.type = `not-an-element-${name}`;
    return { tree, defect: `unknown type at ${pointerOf(path)}`, pointer: pointerOf([...path, 'type']) };
  });
