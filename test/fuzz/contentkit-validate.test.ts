// Fuzzes validateContentKit with generated valid trees (accepted), trees with one targeted defect
// (refused, with an error at the defect's pointer), mutated trees and random JSON (never throws,
// mostly refused, each error pointer inside the input) and deep trees (accepted within the depth
// bound, refused past it with that one error). Seed and replay: see fuzz-assert.ts.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_DEPTH, validateContentKit } from '../../host/contentkit/validate.ts';
import { brokenTree, deepTree, invalidTree, validTree } from './arbitraries/contentkit.ts';
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
  it("accepts every tree built from GitBook's ContentKit schemas", async () => {
    await fuzz(
      fc.property(validTree, (tree) => {
        expect(validateContentKit(tree)).toEqual({ valid: true });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses every tree with a targeted defect, with an error at the defect', async () => {
    await fuzz(
      fc.property(brokenTree, ({ tree, defect, pointer }) => {
        const result = validateContentKit(tree);
        expect(result.valid, `${defect} was accepted`).toBe(false);
        if (result.valid) return;
        expectPointersInside(tree, result.errors);
        expect(
          result.errors.map((error) => error.pointer),
          defect,
        ).toContain(pointer);
      }),
      { numRuns: 400 },
    );
  });

  it(
    'never throws on mutated or random trees, refuses most of them, and its error pointers resolve inside the ' +
      'input',
    async () => {
      let runs = 0;
      let refused = 0;
      await fuzz(
        fc.property(invalidTree, (tree) => {
          const result = validateContentKit(tree);
          runs++;
          if (result.valid) return;
          refused++;
          expectPointersInside(tree, result.errors);
        }),
        { numRuns: 400 },
      );
      // A mutation can leave a tree valid (deleting an optional prop), but most break it.
      expect(refused, `${refused} of ${runs} refused`).toBeGreaterThan(runs / 2);
    },
  );

  it(
    'accepts deep trees within the depth bound and refuses ' + 'deeper ones with that one error, not a stack overflow',
    async () => {
      await fuzz(
        fc.property(fc.integer({ min: 1, max: 20_000 }), fc.boolean(), (depth, stacks) => {
          const result = validateContentKit(deepTree(depth, stacks));
          // Every level is two of JSON (the element and its children), under a block: a little under
          // MAX_DEPTH / 2 levels fit, a little over do not.
          if (depth <= MAX_DEPTH / 2 - 3) return void expect(result).toEqual({ valid: true });
          // Valid at any depth otherwise: the only refusal possible is the bound, as its one error.
          if (depth >= MAX_DEPTH / 2 + 1) expect(result.valid).toBe(false);
          if (!result.valid) {
            expect(result.errors).toHaveLength(1);
            expect(result.errors[0].message).toBe(`is nested deeper than ${MAX_DEPTH} levels`);
            expectPointersInside(deepTree(depth, stacks), result.errors);
          }
        }),
        {
          numRuns: 40,
          examples: [
            [20_000, false],
            [20_000, true],
            [MAX_DEPTH / 2 - 3, true],
            [MAX_DEPTH / 2 + 1, false],
          ],
        },
      );
    },
  );
});
