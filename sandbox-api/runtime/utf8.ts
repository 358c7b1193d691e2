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
 * WHATWG "UTF-8 decode" (BOM stripped unless `ignoreBOM`); invalid sequences become U+FFFD, or
 * throw a TypeError when `fatal`.
 */
export function utf8Decode(bytes: Uint8Array, fatal = false, ignoreBOM = false): string {
  let start = 0;
  if (!ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  let result = '';
  let units: number[] = [];
  let codePoint = 0;
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  const fail = (): void => {
    if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
    units.push(REPLACEMENT);
  };
  const emit = (cp: number): void => {
    if (cp < 0x10000) units.push(cp);
    else units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    if (units.length >= FLUSH_UNITS) {
      result += String.fromCharCode.apply(null, units);
      units = [];
    }
  };
  for (let i = start; i < bytes.length; i++) {
    const byte = bytes[i];
    if (needed === 0) {
      if (byte <= 0x7f) emit(byte);
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
      } else fail();
      continue;
    }
    if (byte < lower || byte > upper) {
      codePoint = needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      fail();
      i--; // the offending byte starts over as a new sequence
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    codePoint = (codePoint << 6) | (byte & 0x3f);
    if (++seen === needed) {
      emit(codePoint);
      codePoint = needed = seen = 0;
    }
  }
  if (needed !== 0) fail();
  if (units.length > 0) result += String.fromCharCode.apply(null, units);
  return result;
}
