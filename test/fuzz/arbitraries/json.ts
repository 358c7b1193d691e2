// JSON-ish generators biased toward what breaks parsers and validators: prototype keys, odd
// strings, extreme numbers, deep nesting. Values are always JSON-serializable.

import fc from 'fast-check';

/** Keys that poke at prototypes, pointers and escaping. */
export const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '',
  ' ',
  '/',
  '~',
  '~1',
  '~0',
  'a/b',
  '%2F',
  '\u0000',
  '💥',
  'type',
  'id',
  'null',
);

export const key = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: hostileKey },
);

export const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '0',
    '-1',
    'NaN',
    '\u2028',
    '\ud800',
    '<script>',
    '${{ env.HOME }}',
    'a'.repeat(5_000),
  ),
);

export const oddNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 5e-324),
);

/** Any JSON value, with hostile keys and strings; depth bounded by `maxDepth`. */
export function jsonish(maxDepth = 4): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth },
      fc.constant(null),
      fc.boolean(),
      oddNumber,
      oddString,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    ),
  }));
  return value;
}

/** A JSON object built by JSON.parse, so `__proto__` is an own key as it is on the wire. */
export function jsonObject(maxDepth = 3): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .dictionary(key, jsonish(maxDepth), { maxKeys: 6 })
    .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
}

/** `depth` nested arrays or objects around a leaf: the classic stack-exhaustion input. */
export function deeplyNested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
