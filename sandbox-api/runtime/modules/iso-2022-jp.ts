// The ISO-2022-JP decoder of the Encoding standard (part of the encoding module): its escape-sequence
// state machine runs here, because ICU's recovers from bad sequences differently; the JIS X 0208
// characters themselves come from the host's EUC-JP decoder (the same index, each byte + 0x80).
// It never holds host state: a stream's state is this object's.
import type { LegacyDecoder } from './encoding.ts';

/** Decodes EUC-JP bytes (every two a JIS X 0208 pair) on the host, without `fatal`. */
export type Jis0208Lookup = (euc: Uint8Array) => string;

const ASCII = 0;
const ROMAN = 1;
const KATAKANA = 2;
const LEAD = 3;
const TRAIL = 4;
const ESCAPE_START = 5;
const ESCAPE = 6;

const END = -1;
const REPLACEMENT = 0xfffd;

export class Iso2022JpDecoder implements LegacyDecoder {
  readonly #lookup: Jis0208Lookup;
  readonly #fatal: boolean;
  #state = ASCII;
  #outputState = ASCII;
  #lead = 0;
  #output = false;
  #streaming = false;

  constructor(lookup: Jis0208Lookup, fatal: boolean) {
    this.#lookup = lookup;
    this.#fatal = fatal;
  }

  decode(bytes: Uint8Array, stream: boolean): string {
    if (!this.#streaming) {
      this.#state = this.#outputState = ASCII;
      this.#lead = 0;
      this.#output = false;
    }
    this.#streaming = stream;
    // Code points, and each JIS X 0208 pair as a negative number: -1 - its index in `pairs`.
    const out: number[] = [];
    const pairs: number[] = [];
    const back: number[] = []; // bytes the standard "prepends to the queue": read again first
    let i = 0;
    const error = (): void => {
      if (this.#fatal) this.#fail();
      out.push(REPLACEMENT);
    };
    for (;;) {
      const byte = back.length > 0 ? back.pop()! : i < bytes.length ? bytes[i++] : END;
      if (byte === END && stream) break;
      const state = this.#state;
      if (state === ESCAPE_START) {
        if (byte === 0x24 || byte === 0x28) {
          this.#lead = byte;
          this.#state = ESCAPE;
          continue;
        }
        if (byte !== END) back.push(byte);
        this.#output = false;
        this.#state = this.#outputState;
        error();
        continue;
      }
      if (state === ESCAPE) {
        const lead = this.#lead;
        this.#lead = 0;
        let next = -1;
        if (lead === 0x28 && byte === 0x42) next = ASCII;
        else if (lead === 0x28 && byte === 0x4a) next = ROMAN;
        else if (lead === 0x28 && byte === 0x49) next = KATAKANA;
        else if (lead === 0x24 && (byte === 0x40 || byte === 0x42)) next = LEAD;
        if (next !== -1) {
          this.#state = this.#outputState = next;
          const output = this.#output;
          this.#output = true;
          if (output) error();
          continue;
        }
        if (byte !== END) back.push(byte);
        back.push(lead);
        this.#output = false;
        this.#state = this.#outputState;
        error();
        continue;
      }
      if (byte === END) {
        if (state !== TRAIL) break;
        this.#state = LEAD;
        error();
        continue;
      }
      if (byte === 0x1b) {
        this.#state = ESCAPE_START;
        if (state === TRAIL) error();
        continue;
      }
      if (state === TRAIL) {
        this.#state = LEAD;
        if (byte >= 0x21 && byte <= 0x7e) out.push(-1 - (pairs.push((this.#lead << 8) | byte) - 1));
        else error();
        continue;
      }
      this.#output = false;
      if (state === LEAD) {
        if (byte >= 0x21 && byte <= 0x7e) {
          this.#lead = byte;
          this.#state = TRAIL;
        } else error();
      } else if (state === KATAKANA) {
        if (byte >= 0x21 && byte <= 0x5f) out.push(0xff61 - 0x21 + byte);
        else error();
      } else if (byte > 0x7f || byte === 0x0e || byte === 0x0f) error();
      else if (state === ROMAN && byte === 0x5c) out.push(0xa5);
      else if (state === ROMAN && byte === 0x7e) out.push(0x203e);
      else out.push(byte);
    }
    return this.#text(out, pairs);
  }

  /** The output, with every pair's character from the host (U+FFFD where the index has none). */
  #text(out: number[], pairs: number[]): string {
    let characters: number[] = [];
    if (pairs.length > 0) {
      const euc = new Uint8Array(pairs.length * 2);
      for (let p = 0; p < pairs.length; p++) {
        euc[2 * p] = (pairs[p] >> 8) | 0x80;
        euc[2 * p + 1] = (pairs[p] & 0xff) | 0x80;
      }
      characters = codePoints(this.#lookup(euc));
      // One character per pair is what EUC-JP gives; were it ever otherwise, each pair on its own.
      if (characters.length !== pairs.length)
        characters = pairs.map((_, p) => codePoints(this.#lookup(euc.subarray(2 * p, 2 * p + 2)))[0] ?? REPLACEMENT);
      if (this.#fatal && characters.includes(REPLACEMENT)) this.#fail();
    }
    let result = '';
    for (let start = 0; start < out.length; start += 4096) {
      const units = out.slice(start, start + 4096).map((value) => (value < 0 ? characters[-1 - value] : value));
      result += String.fromCodePoint(...units);
    }
    return result;
  }

  #fail(): never {
    this.#streaming = false;
    throw new TypeError('The encoded data was not valid for encoding iso-2022-jp');
  }
}

function codePoints(text: string): number[] {
  const points: number[] = [];
  for (const character of text) points.push(character.codePointAt(0)!);
  return points;
}
