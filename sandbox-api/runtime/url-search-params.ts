// URLSearchParams per the WHATWG URL standard (application/x-www-form-urlencoded parsing and
// serializing). Pure: the URL class binds it to a URL through `bindSearchParams`, never a global.
import { utf8Decode, utf8Encode } from './utf8.ts';

type Pair = [string, string];

const HEX = '0123456789ABCDEF';

/** Percent-decodes the UTF-8 bytes of `input` and decodes them back (invalid UTF-8 → U+FFFD). */
export function percentDecode(input: string): string {
  if (!input.includes('%')) return toUSVString(input);
  const bytes = utf8Encode(input);
  const out = new Uint8Array(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[length++] = (hexValue(bytes[i + 1]) << 4) | hexValue(bytes[i + 2]);
      i += 2;
    } else out[length++] = byte;
  }
  return utf8Decode(out.subarray(0, length), false, true);
}

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function hexValue(byte: number): number {
  return byte <= 0x39 ? byte - 0x30 : (byte & 0xdf) - 0x37;
}

function toUSVString(input: string): string {
  return /[\ud800-\udfff]/.test(input) ? utf8Decode(utf8Encode(input), false, true) : input; // a leading U+FEFF is text here, not a byte order mark
}

/** The application/x-www-form-urlencoded parser. */
export function parseUrlencoded(input: string): Pair[] {
  const pairs: Pair[] = [];
  for (const sequence of input.split('&')) {
    if (sequence === '') continue;
    const eq = sequence.indexOf('=');
    const name = eq < 0 ? sequence : sequence.slice(0, eq);
    const value = eq < 0 ? '' : sequence.slice(eq + 1);
    pairs.push([percentDecode(name.replace(/\+/g, ' ')), percentDecode(value.replace(/\+/g, ' '))]);
  }
  return pairs;
}

/** Percent-encodes with the application/x-www-form-urlencoded set, space as `+`. */
export function encodeUrlencoded(input: string): string {
  if (/^[A-Za-z0-9*\-._]*$/.test(input)) return input;
  let out = '';
  for (const byte of utf8Encode(input)) {
    const isPlain =
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2a || byte === 0x2d || byte === 0x2e || byte === 0x5f;
    if (isPlain) out += String.fromCharCode(byte);
    else if (byte === 0x20) out += '+';
    else out += '%' + HEX[byte >> 4] + HEX[byte & 15];
  }
  return out;
}

export function serializeUrlencoded(pairs: readonly Pair[]): string {
  return pairs.map(([name, value]) => `${encodeUrlencoded(name)}=${encodeUrlencoded(value)}`).join('&');
}

let replaceList: (params: URLSearchParams, list: Pair[]) => void;
let setUpdateSteps: (params: URLSearchParams, steps: (serialized: string) => void) => void;

/** Lets the URL class replace the list (URL changed) and hear about mutations (params changed). */
export function bindSearchParams(params: URLSearchParams, onUpdate: (serialized: string) => void): (query: string) => void {
  setUpdateSteps(params, onUpdate);
  return (query) => replaceList(params, parseUrlencoded(query.startsWith('?') ? query.slice(1) : query));
}

export class URLSearchParams {
  #list: Pair[] = [];
  #onUpdate: ((serialized: string) => void) | null = null;

  static {
    replaceList = (params, list) => {
      params.#list = list;
    };
    setUpdateSteps = (params, steps) => {
      params.#onUpdate = steps;
    };
  }

  constructor(init: unknown = '') {
    if (init !== null && (typeof init === 'object' || typeof init === 'function')) {
      const source = init as Record<PropertyKey, unknown>;
      if (typeof source[Symbol.iterator] === 'function') {
        for (const pair of source as unknown as Iterable<unknown>) {
          if (pair === null || typeof pair !== 'object' || typeof (pair as Iterable<unknown>)[Symbol.iterator] !== 'function') {
            throw new TypeError('Each URLSearchParams init pair must be an iterable [name, value]');
          }
          const items = [...(pair as Iterable<unknown>)];
          if (items.length !== 2) throw new TypeError('Each URLSearchParams init pair must have exactly two items');
          this.#list.push([toUSVString(String(items[0])), toUSVString(String(items[1]))]);
        }
      } else {
        for (const key of Reflect.ownKeys(source)) {
          if (typeof key !== 'string') continue;
          const descriptor = Reflect.getOwnPropertyDescriptor(source, key);
          if (descriptor?.enumerable) this.#list.push([toUSVString(key), toUSVString(String(source[key]))]);
        }
      }
    } else {
      const text = String(init);
      this.#list = parseUrlencoded(text.startsWith('?') ? text.slice(1) : text);
    }
  }

  #update(): void {
    this.#onUpdate?.(serializeUrlencoded(this.#list));
  }

  get size(): number {
    return this.#list.length;
  }

  append(name: string, value: string): void {
    this.#list.push([toUSVString(String(name)), toUSVString(String(value))]);
    this.#update();
  }

  delete(name: string, value?: string): void {
    const key = toUSVString(String(name));
    const match = value === undefined ? null : toUSVString(String(value));
    this.#list = this.#list.filter(([n, v]) => !(n === key && (match === null || v === match)));
    this.#update();
  }

  get(name: string): string | null {
    const key = toUSVString(String(name));
    return this.#list.find(([n]) => n === key)?.[1] ?? null;
  }

  getAll(name: string): string[] {
    const key = toUSVString(String(name));
    return this.#list.filter(([n]) => n === key).map(([, v]) => v);
  }

  has(name: string, value?: string): boolean {
    const key = toUSVString(String(name));
    const match = value === undefined ? null : toUSVString(String(value));
    return this.#list.some(([n, v]) => n === key && (match === null || v === match));
  }

  set(name: string, value: string): void {
    const key = toUSVString(String(name));
    const val = toUSVString(String(value));
    const first = this.#list.findIndex(([n]) => n === key);
    if (first < 0) this.#list.push([key, val]);
    else {
      this.#list[first] = [key, val];
      this.#list = this.#list.filter(([n], i) => i <= first || n !== key);
    }
    this.#update();
  }

  sort(): void {
    // Stable sort by code units, as the spec asks (Array.prototype.sort is stable).
    this.#list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.#update();
  }

  forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError('URLSearchParams.forEach: callback is not a function');
    for (let i = 0; i < this.#list.length; i++) {
      const [name, value] = this.#list[i];
      callback.call(thisArg, value, name, this);
    }
  }

  *entries(): IterableIterator<[string, string]> {
    for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]];
  }

  *keys(): IterableIterator<string> {
    for (let i = 0; i < this.#list.length; i++) yield this.#list[i][0];
  }

  *values(): IterableIterator<string> {
    for (let i = 0; i < this.#list.length; i++) yield this.#list[i][1];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  toString(): string {
    return serializeUrlencoded(this.#list);
  }

  get [Symbol.toStringTag](): string {
    return 'URLSearchParams';
  }
}
