// Fuzzes validateContentKit with generated valid trees, mutated trees and random JSON: it never
// throws, and each error pointer lands inside the input. Seed and replay: see fuzz-assert.ts.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateContentKit } from '../../host/contentkit/validate.ts';
import { deepTree, invalidTree, validTree } from './arbitraries/contentkit.ts';
import { JSON_POINTER } from './assertions.ts';
import { fuzz } from './fuzz-assert.ts';

function resolve(root: unknown, pointer: string): { found: boolean; value?: unknown } {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return { found: false };
    node = (node as Record<string, unknown>)[token];
  }
  return { found: true, value: node };
}

/** Pointers land in the input; a missing required prop points at a key of an object that exists. */
function expectPointersInside(tree: unknown, errors: { pointer: string; message: string }[]): void {
  expect(errors.length).toBeGreaterThan(0);
  for (const { pointer, message } of errors) {
    expect(pointer).toMatch(JSON_POINTER);
    expect(message.trim()).not.toBe('');
    if (resolve(tree, pointer).found) continue;
    expect(message, `${pointer} does not resolve`).toMatch(/^is required/);
    const parent = resolve(tree, pointer.slice(0, pointer.lastIndexOf('/')));
    expect(parent.found && typeof parent.value === 'object' && parent.value !== null, `${pointer}'s parent`).toBe(true);
  }
}

describe('validateContentKit under fuzzing', () => {
  it('accepts every tree built from GitBook\'s ContentKit schemas', async () => {
    await fuzz(
      fc.property(validTree, (tree) => {
        expect(validateContentKit(tree)).toEqual({ valid: true });
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on mutated or random trees, and its error pointers resolve inside the input', async () => {
    await fuzz(
      fc.property(invalidTree, (tree) => {
        const result = validateContentKit(tree);
        if (!result.valid) expectPointersInside(tree, result.errors);
      }),
      { numRuns: 400 },
    );
  });

  it('answers trees nested far too deep with an error, not a stack overflow', async () => {
    await fuzz(
      fc.property(fc.integer({ min: 1, max: 20_000 }), fc.boolean(), (depth, lone) => {
        const result = validateContentKit(deepTree(depth, lone));
        if (!result.valid) expectPointersInside(deepTree(depth, lone), result.errors);
      }),
      { numRuns: 40 },
    );
  });
});
