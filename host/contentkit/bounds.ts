// The size bounds of a ContentKit answer, checked before ajv runs (ajv recurses once per nesting
// level, so depth must be bounded first). Pure; iterative, so no input can exhaust the stack here.

import type { ContentKitError } from './describe-errors.ts';
import { escapeToken } from './describe-errors.ts';
import { MAX_JSON_DEPTH } from '../common/json-depth.ts';

/**
 * JSON nesting the validator accepts (an element level is two: the element and its `children`):
 * the host's one limit for JSON from outside, so whatever the HTTP layer accepted validates.
 */
export const MAX_DEPTH = MAX_JSON_DEPTH;
/** Values (objects, arrays and leaves) the validator accepts in one output. */
export const MAX_VALUES = 50_000;

/** A tree too deep or too large is refused before ajv sees it (ajv recurses per level). */
export function checkBounds(root: unknown): ContentKitError | null {
  const pending: [unknown, string, number][] = [[root, '', 0]];
  let values = 0;
  while (pending.length > 0) {
    const [value, pointer, depth] = pending.pop()!;
    if (++values > MAX_VALUES) return { pointer: '', message: `has more than ${MAX_VALUES} values` };
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) return { pointer, message: `is nested deeper than ${MAX_DEPTH} levels` };
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    for (const [key, item] of entries) pending.push([item, `${pointer}/${escapeToken(key)}`, depth + 1]);
  }
  return null;
}
