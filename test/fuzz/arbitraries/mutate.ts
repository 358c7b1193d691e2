// Structural mutations of a JSON document: delete, duplicate, wrap, stringify, replace or add at
// a node picked by index, so shrinking walks toward the smallest breaking edit. Never mutates its input.

import fc from 'fast-check';
import { hostileKey, jsonish } from './json.ts';

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => out.push(...pathsOf(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) out.push(...pathsOf(item, [...prefix, name]));
  }
  return out;
}

export type Mutation =
  | { kind: 'delete' | 'duplicate' | 'wrap' | 'stringify'; at: number }
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'add'; at: number; key: string; value: unknown };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('delete', 'duplicate', 'wrap', 'stringify'),
    at: fc.nat(),
  }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: jsonish(2) }),
  fc.record({
    kind: fc.constant('add' as const),
    at: fc.nat(),
    key: fc.oneof(hostileKey, fc.string({ maxLength: 10 })),
    value: jsonish(2),
  }),
);

/** Applies each mutation at a node chosen by `at` among the current document's nodes. */
export function mutate(doc: unknown, mutations: Mutation[]): unknown {
  let root: unknown = structuredClone(doc);
  for (const m of mutations) {
    const paths = pathsOf(root);
    const at = paths[m.at % paths.length];
    const parent = at.slice(0, -1).reduce<any>((node, token) => node[token], root);
    const last = at.at(-1);
    const current = last === undefined ? root : parent[last];
    const set = (value: unknown): void => {
      if (last === undefined) root = value;
      else parent[last] = value;
    };
    if (m.kind === 'delete' && last !== undefined) {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else if (m.kind === 'duplicate' && Array.isArray(parent))
      parent.splice(Number(last), 0, structuredClone(current));
    else if (m.kind === 'wrap') set([current]);
    else if (m.kind === 'stringify') set(JSON.stringify(current) ?? 'undefined');
    else if (m.kind === 'replace') set(m.value);
    else if (m.kind === 'add' && current !== null && typeof current === 'object' && !Array.isArray(current)) {
      Object.defineProperty(current, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}
