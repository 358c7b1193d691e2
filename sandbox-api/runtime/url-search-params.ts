// URLSearchParams per the WHATWG URL standard (application/x-www-form-urlencoded parsing and
// serializing). Pure: the URL class binds it to a URL through `bindSearchParams`, never a global.
import { utf8Decode, utf8Encode } from './utf8.ts';
import {
  defineIterable,
  failed,
  forEachPair,
  pairIterators,
  requireArguments,
  toPairs,
  toUSVString,
} from './webidl.ts';

type Pair = [string, string];

const HEX = '0123456789ABCDEF';

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function hexValue(byte: number): number {
  return byte <= 0x39 ? byte - 0x30 : (byte & 0xdf) - 0x37;
}

/** One name or value: `+` is a space, then percent-decoded bytes, then UTF-8 without BOM handling. */
function decodeField(bytes: Uint8Array): string {
  const out = new Uint8Array(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[length++] = (hexValue(bytes[i + 1]) << 4) | hexValue(bytes[i + 2]);
      i += 2;
    } else out[length++] = byte === 0x2b ? 0x20 : byte;
  }
  // A leading U+FEFF is text here, not a byte order mark.
  return utf8Decode(out.subarray(0, length), false, true);
}

/** The application/x-www-form-urlencoded parser, on bytes as the standard defines it (form bodies). */
export function parseUrlencodedBytes(bytes: Uint8Array): Pair[] {
  const pairs: Pair[] = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x26, start);
    if (end < 0) end = bytes.length;
    if (end > start) {
      const sequence = bytes.subarray(start, end);
      const eq = sequence.indexOf(0x3d);
      const name = eq < 0 ? sequence : sequence.subarray(0, eq);
      const value = eq < 0 ? sequence.subarray(sequence.length) : sequence.subarray(eq + 1);
      pairs.push([decodeField(name), decodeField(value)]);
    }
    start = end + 1;
  }
  return pairs;
}

/** The same parser on a string (its UTF-8 bytes); a string with nothing to decode skips the bytes. */
export function parseUrlencoded(input: string): Pair[] {
  if (/[%+\ud800-\udfff]/.test(input)) return parseUrlencodedBytes(utf8Encode(input));
  const pairs: Pair[] = [];
  for (const sequence of input.split('&')) {
    if (sequence === '') continue;
    const eq = sequence.indexOf('=');
    pairs.push(eq < 0 ? [sequence, ''] : [sequence.slice(0, eq), sequence.slice(eq + 1)]);
  }
  return pairs;
}

/** Percent-encodes with the application/x-www-form-urlencoded set, space as `+`. */
export function encodeUrlencoded(input: string): string {
  if (/^[A-Za-z0-9*\-._]*$/.test(input)) return input;
  let out = '';
  for (const byte of utf8Encode(input)) {
    const isPlain =
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2a ||
      byte === 0x2d ||
      byte === 0x2e ||
      byte === 0x5f;
    if (isPlain) out += String.fromCharCode(byte);
    else if (byte === 0x20) out += '+';
    else out += '%' + HEX[byte >> 4] + HEX[byte & 15];
  }
  return out;
}

export function serializeUrlencoded(pairs: readonly Pair[]): string {
  return pairs.map(([name, value]) => `${encodeUrlencoded(name)}=${encodeUrlencoded(value)}`).join('&');
}

let listOf: (params: URLSearchParams) => Pair[];
let replaceList: (params: URLSearchParams, list: Pair[]) => void;
let setUpdateSteps: (params: URLSearchParams, steps: (serialized: string) => void) => void;

/** Lets the URL class replace the list (URL changed) and hear about mutations (params changed). */
export function bindSearchParams(
  params: URLSearchParams,
  onUpdate: (serialized: string) => void,
): (query: string) => void {
  setUpdateSteps(params, onUpdate);
  return (query) => replaceList(params, parseUrlencoded(query.startsWith('?') ? query.slice(1) : query));
}

/** WebIDL's conversion of `(sequence<sequence<USVString>> or record<USVString, USVString> or USVString)`. */
function convertInit(init: unknown): Pair[] {
  if (init !== null && (typeof init === 'object' || typeof init === 'function'))
    return toPairs(init, toUSVString, failed('URLSearchParams', 'constructor'));
  const text = toUSVString(init);
  return parseUrlencoded(text.startsWith('?') ? text.slice(1) : text);
}

const iterate = pairIterators<URLSearchParams>('URLSearchParams', (params) => listOf(params));

// The class is a property value named as the standard spells it: the bundler renames bindings
// (URLSearchParams is a global other bundled modules use), never property keys, and a class takes
// its name, and its name in stack traces, from the key.
export const URLSearchParams = {
  URLSearchParams: class {
    #list: Pair[] = [];
    #onUpdate: ((serialized: string) => void) | null = null;

    static {
      listOf = (params) => params.#list;
      replaceList = (params, list) => {
        params.#list = list;
      };
      setUpdateSteps = (params, steps) => {
        params.#onUpdate = steps;
      };
    }

    constructor(init: unknown = '') {
      this.#list = convertInit(init);
    }

    #update(): void {
      this.#onUpdate?.(serializeUrlencoded(this.#list));
    }

    get size(): number {
      return this.#list.length;
    }

    append(name: string, value: string): void {
      requireArguments(arguments.length, 2, 'URLSearchParams', 'append');
      this.#list.push([toUSVString(name), toUSVString(value)]);
      this.#update();
    }

    delete(name: string, value: string | undefined = undefined): void {
      requireArguments(arguments.length, 1, 'URLSearchParams', 'delete');
      const key = toUSVString(name);
      const match = value === undefined ? null : toUSVString(value);
      this.#list = this.#list.filter(([n, v]) => !(n === key && (match === null || v === match)));
      this.#update();
    }

    get(name: string): string | null {
      requireArguments(arguments.length, 1, 'URLSearchParams', 'get');
      const key = toUSVString(name);
      return this.#list.find(([n]) => n === key)?.[1] ?? null;
    }

    getAll(name: string): string[] {
      requireArguments(arguments.length, 1, 'URLSearchParams', 'getAll');
      const key = toUSVString(name);
      return this.#list.filter(([n]) => n === key).map(([, v]) => v);
    }

    has(name: string, value: string | undefined = undefined): boolean {
      requireArguments(arguments.length, 1, 'URLSearchParams', 'has');
      const key = toUSVString(name);
      const match = value === undefined ? null : toUSVString(value);
      return this.#list.some(([n, v]) => n === key && (match === null || v === match));
    }

    set(name: string, value: string): void {
      requireArguments(arguments.length, 2, 'URLSearchParams', 'set');
      const key = toUSVString(name);
      const val = toUSVString(value);
      const first = this.#list.findIndex(([n]) => n === key);
      if (first < 0) this.#list.push([key, val]);
      else
        this.#list = this.#list.flatMap((pair, i): Pair[] =>
          i === first ? [[key, val]] : pair[0] === key ? [] : [pair],
        );
      this.#update();
    }

    sort(): void {
      // Stable sort by code units, as the standard asks (Array.prototype.sort is stable).
      this.#list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.#update();
    }

    forEach(
      callback: (value: string, name: string, params: URLSearchParams) => void,
      thisArg: unknown = undefined,
    ): void {
      forEachPair(this, listOf, callback, thisArg, 'URLSearchParams');
    }

    entries(): IterableIterator<[string, string]> {
      return iterate(this, 'key+value') as IterableIterator<[string, string]>;
    }

    keys(): IterableIterator<string> {
      return iterate(this, 'key') as IterableIterator<string>;
    }

    values(): IterableIterator<string> {
      return iterate(this, 'value') as IterableIterator<string>;
    }

    declare [Symbol.iterator]: () => IterableIterator<[string, string]>;

    toString(): string {
      return serializeUrlencoded(this.#list);
    }

    static {
      defineIterable(this.prototype, 'URLSearchParams');
    }
  },
}.URLSearchParams;
export type URLSearchParams = InstanceType<typeof URLSearchParams>;
