// Manifest generators: a full valid manifest, structural mutations of it (mutate.ts), YAML texts
// (dumped, spliced with YAML syntax, random) and YAML bombs.

import fc from 'fast-check';
import { dump } from 'js-yaml';
import { jsonish, oddString } from './json.ts';
import { mutate, mutation } from './mutate.ts';

export const FUZZ_SCRIPT = 'export default { fetch() { return new Response("ok"); } };\n';
export const FUZZ_ENV = { FUZZ_TARGET_TOKEN: 'fuzz-secret-value' };

/** Uses every part of the schema, so mutations can reach every branch of the checks. */
export function validManifest(): Record<string, unknown> {
  const property = (type: string, extra: Record<string, unknown> = {}) => ({
    type,
    title: 'T',
    description: 'D',
    ...extra,
  });
  return {
    name: 'fuzz-target',
    title: 'Fuzz target',
    description: 'Written by the manifest fuzzer.',
    summary: 'A **summary**.',
    organization: 'acme',
    visibility: 'public',
    scopes: ['space:content:read', 'site:views:read'],
    script: 'index.ts',
    categories: ['other', 'content'],
    blocks: [
      { id: 'one', title: 'One', description: 'First block' },
      { id: 'two', title: 'Two', description: 'Second' },
    ],
    externalLinks: [{ label: 'Docs', url: 'https://example.com/docs' }],
    configurations: {
      account: {
        properties: {
          channel: property('string', { enum: ['a', 'b'], default: 'a', completion_url: '/channels' }),
          count: property('number', { default: 3 }),
          on: property('boolean', { default: false }),
          connect: property('button', { button_text: 'Connect', callback_url: '/oauth' }),
        },
        required: ['channel'],
      },
      site: { properties: { note: property('string') }, required: [] },
    },
    secrets: { TOKEN: '${{ env.FUZZ_TARGET_TOKEN }}' },
  };
}

export function toYaml(value: unknown): string {
  return dump(value);
}

const YAML_SYNTAX = fc.constantFrom(
  '&a ',
  '*a',
  '*nope',
  '<<: *a\n',
  '!!str ',
  '!!binary ',
  '!!js/function ',
  '!<tag:x> ',
  '? ',
  ': ',
  '- ',
  '\t',
  '\n',
  '---\n',
  '...\n',
  '%YAML 1.2\n',
  '%TAG ! tag:x\n',
  '"',
  "'",
  '|\n',
  '>-\n',
  '{',
  '}',
  '[',
  ']',
  ',',
  '#',
  '\r',
  '\u0000',
  '\ufeff',
  '\\',
);

export const splice = fc.record({ at: fc.nat(), remove: fc.nat({ max: 8 }), insert: fc.oneof(YAML_SYNTAX, oddString) });

export function applySplices(text: string, splices: { at: number; remove: number; insert: string }[]): string {
  let out = text;
  for (const { at, remove, insert } of splices) {
    const index = at % (out.length + 1);
    out = out.slice(0, index) + insert + out.slice(index + remove);
  }
  return out;
}

/** Text for platform-manifest.yaml: mutated structures, spliced valid text, random documents. */
export const manifestText: fc.Arbitrary<string> = fc.oneof(
  fc.array(mutation, { minLength: 1, maxLength: 4 }).map((ms) => toYaml(mutate(validManifest(), ms))),
  fc.array(splice, { minLength: 1, maxLength: 4 }).map((ss) => applySplices(toYaml(validManifest()), ss)),
  jsonish(4).map(toYaml),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.array(YAML_SYNTAX, { maxLength: 30 }).map((tokens) => tokens.join('')),
);

/** Deep nesting and alias fan-out: must be refused (or accepted) quickly, never hang. */
export const yamlBomb: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({ depth: fc.integer({ min: 50, max: 50_000 }), open: fc.constantFrom('[', '{a: ', '- ') })
    .map(({ depth, open }) => {
      if (open === '- ')
        return Array.from({ length: Math.min(depth, 2_000) }, (_, i) => `${'  '.repeat(i)}- `).join('\n') + 'x';
      return `name: ${open.repeat(depth)}x${(open === '[' ? ']' : '}').repeat(depth)}\n`;
    }),
  fc
    .record({ levels: fc.integer({ min: 2, max: 40 }), fanout: fc.integer({ min: 2, max: 12 }) })
    .map(({ levels, fanout }) => {
      const lines = ['name: bomb', 'l0: &l0 [lol, lol, lol]'];
      for (let i = 1; i <= levels; i++)
        lines.push(
          `l${i}: &l${i} [${Array(fanout)
            .fill(`*l${i - 1}`)
            .join(', ')}]`,
        );
      lines.push(`title: *l${levels}`, `configurations: {account: {properties: *l${levels}}}`);
      return lines.join('\n');
    }),
);
