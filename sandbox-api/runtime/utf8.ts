// UTF-8 encoding and decoding written for the isolate (WHATWG Encoding: lone surrogates become
// U+FFFD on encode, maximal-subpart replacement on decode). Pure: no globals beyond JS built-ins.

const REPLACEMENT = 0xfffd;
const FLUSH_UNITS = 4096;

/** UTF-8 bytes of `input`; lone surrogates are encoded as U+FFFD (the USVString conversion). */
export function utf8Encode(input: string): Uint8Array {
  // Measured first: an exact allocation, instead of 3 bytes per code unit, matters for large bodies.
  const out = new Uint8Array(utf8Length(input));
  encodeIntoBuffer(input, out);
  return out;
}

/** TextEncoder.encodeInto: writes whole code points only; `read` counts UTF-16 code units. */
export function encodeIntoBuffer(input: string, dest: Uint8Array): { read: number; written: number } {
  let read = 0;
  let written = 0;
  const capacity = dest.length;
  while (read < input.length) {
    let cp = input.charCodeAt(read);
    let units = 1;
    if (cp >= 0xd800 && cp <= 0xdbff && read + 1 < input.length) {
      const next = input.charCodeAt(read + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
        units = 2;
      } else cp = REPLACEMENT;
    } else if (cp >= 0xd800 && cp <= 0xdfff) cp = REPLACEMENT;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (written + size > capacity) break;
    if (size === 1) dest[written++] = cp;
    else if (size === 2) {
      dest[written++] = 0xc0 | (cp >> 6);
      dest[written++] = 0x80 | (cp & 0x3f);
    } else if (size === 3) {
      dest[written++] = 0xe0 | (cp >> 12);
      dest[written++] = 0x80 | ((cp >> 6) & 0x3f);
      dest[written++] = 0x80 | (cp & 0x3f);
    } else {
      dest[written++] = 0xf0 | (cp >> 18);
      dest[written++] = 0x80 | ((cp >> 12) & 0x3f);
      dest[written++] = 0x80 | ((cp >> 6) & 0x3f);
      dest[written++] = 0x80 | (cp & 0x3f);
    }
    read += units;
  }
  return { read, written };
}

/** Number of UTF-8 bytes `input` encodes to, without allocating. */
export function utf8Length(input: string): number {
  let length = 0;
  for (let i = 0; i < input.length; i++) {
    const unit = input.charCodeAt(i);
    if (unit < 0x80) length += 1;
    else if (unit < 0x800) length += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < input.length) {
      const next = input.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length += 4;
        i++;
      } else length += 3;
    } else length += 3;
  }
  return length;
}

/**
 * WHATWG "UTF-8 decode" of a whole buffer (BOM stripped unless `ignoreBOM`); invalid sequences
 * become U+FFFD, or throw a TypeError when `fatal`.
 */
export function utf8Decode(bytes: Uint8Array, fatal = false, ignoreBOM = false): string {
  return new Utf8Decoder(fatal, ignoreBOM).decode(bytes, false);
}

/**
 * The WHATWG UTF-8 decoder with its state kept between calls, for TextDecoder's `{ stream: true }`:
 * an incomplete sequence at the end of a chunk waits for the next one; a call without `stream`
 * flushes it (U+FFFD) and the call after that starts a new stream. The byte order mark is the
 * first code point of a stream only. A fatal error throws and leaves the decoder as new.
 */
export class Utf8Decoder {
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  #codePoint = 0;
  #needed = 0;
  #seen = 0;
  #lower = 0x80;
  #upper = 0xbf;
  #bomSeen = false;
  #streaming = false;

  constructor(fatal: boolean, ignoreBOM: boolean) {
    this.#fatal = fatal;
    this.#ignoreBOM = ignoreBOM;
  }

  decode(bytes: Uint8Array, stream: boolean): string {
    if (!this.#streaming) this.#reset();
    this.#streaming = stream;
    let codePoint = this.#codePoint;
    let needed = this.#needed;
    let seen = this.#seen;
    let lower = this.#lower;
    let upper = this.#upper;
    let result = '';
    let units: number[] = [];
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (needed === 0) {
        if (byte <= 0x7f) units.push(byte);
        else if (byte >= 0xc2 && byte <= 0xdf) {
          needed = 1;
          codePoint = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) lower = 0xa0;
          if (byte === 0xed) upper = 0x9f;
          needed = 2;
          codePoint = byte & 0x0f;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) lower = 0x90;
          if (byte === 0xf4) upper = 0x8f;
          needed = 3;
          codePoint = byte & 0x07;
        } else {
          if (this.#fatal) this.#fail();
          units.push(REPLACEMENT);
        }
      } else if (byte < lower || byte > upper) {
        codePoint = needed = seen = 0;
        lower = 0x80;
        upper = 0xbf;
        if (this.#fatal) this.#fail();
        units.push(REPLACEMENT);
        i--; // the offending byte starts over as a new sequence
      } else {
        lower = 0x80;
        upper = 0xbf;
        codePoint = (codePoint << 6) | (byte & 0x3f);
        if (++seen === needed) {
          if (codePoint < 0x10000) units.push(codePoint);
          else units.push(0xd800 + ((codePoint - 0x10000) >> 10), 0xdc00 + ((codePoint - 0x10000) & 0x3ff));
          codePoint = needed = seen = 0;
        }
      }
      if (units.length >= FLUSH_UNITS) {
        result += String.fromCharCode.apply(null, units);
        units = [];
      }
    }
    if (!stream && needed !== 0) {
      if (this.#fatal) this.#fail();
      units.push(REPLACEMENT);
      codePoint = needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
    }
    if (units.length > 0) result += String.fromCharCode.apply(null, units);
    this.#codePoint = codePoint;
    this.#needed = needed;
    this.#seen = seen;
    this.#lower = lower;
    this.#upper = upper;
    if (!this.#bomSeen && result.length > 0) {
      this.#bomSeen = true;
      if (!this.#ignoreBOM && result.charCodeAt(0) === 0xfeff) return result.slice(1);
    }
    return result;
  }

  #reset(): void {
    this.#codePoint = this.#needed = this.#seen = 0;
    this.#lower = 0x80;
    this.#upper = 0xbf;
    this.#bomSeen = false;
  }

  #fail(): never {
    this.#reset();
    this.#streaming = false;
    throw new TypeError('The encoded data was not valid for encoding utf-8');
  }
}
