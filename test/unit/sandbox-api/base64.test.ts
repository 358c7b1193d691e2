// atob/btoa (runtime) against Node's forgiving-base64 atob/btoa as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atob as runtimeAtob, btoa as runtimeBtoa } from '../../../sandbox-api/runtime/base64.ts';
import { DOMException as RuntimeDOMException } from '../../../sandbox-api/runtime/dom-exception.ts';

const outcome = (fn: () => string): string => {
  try {
    return fn();
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
};

describe('base64 (runtime)', () => {
  it('encodes binary strings like Node, and rejects code units above 0xFF', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (input) => {
        expect(outcome(() => runtimeBtoa(input))).toBe(outcome(() => btoa(input)));
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes any input like Node (whitespace, padding, invalid characters)', () => {
    const chars = fc.constantFrom(...'AQZaz09+/= \t\n\f\r-_*'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 16 }), (parts) => {
        const input = parts.join('');
        expect(outcome(() => runtimeAtob(input))).toBe(outcome(() => atob(input)));
      }),
      { numRuns: 5000 },
    );
  });

  it('round-trips every byte', () => {
    const all = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i));
    expect(runtimeAtob(runtimeBtoa(all))).toBe(all);
  });

  it('throws an InvalidCharacterError DOMException', () => {
    let error: unknown;
    try {
      runtimeAtob('a');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RuntimeDOMException);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'InvalidCharacterError', code: 5 });
  });
});
