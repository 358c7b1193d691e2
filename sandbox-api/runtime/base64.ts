// atob/btoa per the HTML spec's forgiving-base64 rules; failures are DOMException
// InvalidCharacterError. Pure: no bridge.
import { DOMException } from './dom-exception.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

function invalidCharacter(message: string): DOMException {
  return new DOMException(message, 'InvalidCharacterError');
}

/** Binary string (code units 0..255) → base64; any code unit above 255 is an error. */
export function btoa(data: unknown): string {
  if (arguments.length === 0) throw new TypeError("Failed to execute 'btoa': 1 argument required, but only 0 present.");
  const input = String(data);
  let out = '';
  for (let i = 0; i < input.length; i += 3) {
    const a = input.charCodeAt(i);
    const b = i + 1 < input.length ? input.charCodeAt(i + 1) : 0;
    const c = i + 2 < input.length ? input.charCodeAt(i + 2) : 0;
    if (a > 0xff || b > 0xff || c > 0xff) throw invalidCharacter('Invalid character');
    const bits = (a << 16) | (b << 8) | c;
    out += ALPHABET[bits >> 18] + ALPHABET[(bits >> 12) & 63];
    out += i + 1 < input.length ? ALPHABET[(bits >> 6) & 63] : '=';
    out += i + 2 < input.length ? ALPHABET[bits & 63] : '=';
  }
  return out;
}

/** Forgiving-base64 decode → binary string. */
export function atob(data: unknown): string {
  if (arguments.length === 0) throw new TypeError("Failed to execute 'atob': 1 argument required, but only 0 present.");
  let input = String(data).replace(/[\t\n\f\r ]/g, '');
  if (input.length % 4 === 0) input = input.replace(/==?$/, '');
  if (input.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(input)) {
    throw invalidCharacter('The string to be decoded is not correctly encoded.');
  }
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < input.length; i++) {
    buffer = (buffer << 6) | DECODE[input.charCodeAt(i)];
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((buffer >> bits) & 0xff);
    }
  }
  return out;
}
