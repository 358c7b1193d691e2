// Webhook signature header generators: headers assembled from right, wrong and junk items (real
// signatures for the body, for other secrets and timestamps, odd spellings), plus raw strings.

import fc from 'fast-check';
import { createHmac } from 'node:crypto';

export const NOW_MS = 1_750_000_000_123;
const NOW_S = Math.floor(NOW_MS / 1000);

export const secret = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 80 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }) },
  { weight: 1, arbitrary: fc.constant('') },
);
export const body = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }),
  fc.json({ maxDepth: 2 }),
);
/** Around the tolerance edges of a 0–600 s window, and far away. */
export const timestamp = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: NOW_S - 200, max: NOW_S + 200 }) },
  { weight: 2, arbitrary: fc.integer({ min: NOW_S - 700, max: NOW_S + 700 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, NOW_S - 300, NOW_S + 300, NOW_S - 301, NOW_S + 301, 999_999_999_999_999) },
);

export function hmacHex(key: string, t: number | string, payload: string | Uint8Array): string {
  return createHmac('sha256', key).update(`${t}.`).update(payload).digest('hex');
}

export interface HeaderPlan {
  items: (
    | { kind: 't'; t: number; spelling: 'plain' | 'zero-padded' | 'signed' | 'spaced' }
    | { kind: 'v1'; t: number; sameT: boolean; withSecret: 'right' | 'other'; upper: boolean }
    | { kind: 'raw'; text: string }
  )[];
  separator: string;
}

const tItem = fc.record({
  kind: fc.constant('t' as const),
  t: timestamp,
  spelling: fc.constantFrom('plain', 'plain', 'plain', 'zero-padded', 'signed', 'spaced'),
});
const v1Item = fc.record({
  kind: fc.constant('v1' as const),
  t: timestamp,
  sameT: fc.boolean(),
  withSecret: fc.constantFrom('right', 'right', 'other'),
  upper: fc.boolean(),
});
const rawItem = fc.record({
  kind: fc.constant('raw' as const),
  text: fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom(
      'v1=',
      't=',
      '=x',
      'v0=abcd',
      'v2=00',
      'v1=zz',
      'v1=' + 'a'.repeat(64),
      'v1=' + 'A'.repeat(63),
      ' ',
      't==1',
    ),
  ),
});

/** Mostly one `t` and a few `v1`, sometimes junk or a second `t`, in any order. */
export const headerPlan: fc.Arbitrary<HeaderPlan> = fc
  .record({
    times: fc.oneof({ weight: 6, arbitrary: fc.tuple(tItem) }, fc.constant([]), fc.tuple(tItem, tItem)),
    signatures: fc.oneof({ weight: 4, arbitrary: fc.array(v1Item, { minLength: 1, maxLength: 3 }) }, fc.constant([])),
    junk: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(rawItem, { minLength: 1, maxLength: 2 }) },
    ),
    order: fc.array(fc.nat(), { minLength: 7, maxLength: 7 }),
    separator: fc.constantFrom(',', ', ', ' , ', ',,'),
  })
  .map(({ times, signatures, junk, order, separator }) => {
    const items: HeaderPlan['items'] = [...times, ...signatures, ...junk];
    const ranked = items.map((entry, index) => ({ entry, rank: order[index] }));
    return { items: ranked.sort((a, b) => a.rank - b.rank).map(({ entry }) => entry), separator };
  });

/**
 * Renders a plan for the body and secret under test; 'other' signs with a different secret, and
 * `sameT` signs with the header's first `t` so that valid headers come up often.
 */
export function renderHeader(plan: HeaderPlan, key: string, payload: string | Uint8Array): string {
  const firstT = plan.items.find((entry) => entry.kind === 't')?.t;
  return plan.items
    .map((entry) => {
      if (entry.kind === 'raw') return entry.text;
      if (entry.kind === 't') {
        const spelled = {
          plain: `${entry.t}`,
          'zero-padded': `00${entry.t}`,
          signed: `+${entry.t}`,
          spaced: ` ${entry.t} `,
        }[entry.spelling];
        return `t=${spelled}`;
      }
      const hex = hmacHex(
        entry.withSecret === 'right' ? key : `${key}-other`,
        entry.sameT ? (firstT ?? entry.t) : entry.t,
        payload,
      );
      return `v1=${entry.upper ? hex.toUpperCase() : hex}`;
    })
    .join(plan.separator);
}

export const anyHeader = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
);
