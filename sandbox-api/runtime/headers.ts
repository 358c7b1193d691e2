// Headers per the Fetch standard: case-insensitive names, values combined with ", ", iteration
// sorted by lowercase name, `set-cookie` kept apart (getSetCookie). No forbidden header names:
// this is a server runtime. Pure: no bridge.
import {
  defineIterable,
  failed,
  forEachPair,
  pairIterators,
  requireArguments,
  toByteString,
  toPairs,
} from './webidl.ts';

type Pair = [string, string];
export type HeadersGuard = 'none' | 'immutable';

/**
 * Most header bytes (names plus values) a request or response may carry out of the isolate. The
 * copy out duplicates every value, so 200 headers referencing one large string would become a
 * copy 200 times its size in the worker and the host: the sum is checked before anything crosses.
 */
export const MAX_CROSSING_HEADER_BYTES = 64 * 1024;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function normalizeName(name: unknown, method: string): string {
  const text = toByteString(name);
  if (!TOKEN.test(text)) throw new TypeError(`${failed('Headers', method)}: invalid header name "${text}"`);
  return text.toLowerCase();
}

function normalizeValue(value: unknown, method: string): string {
  const raw = toByteString(value);
  // A value this long could never leave the isolate (see crossingHeaderPairs): refuse it before
  // scanning it, so one huge string appended many times costs nothing.
  if (raw.length > MAX_CROSSING_HEADER_BYTES)
    throw new TypeError(
      `${failed('Headers', method)}: invalid header value, longer than ${MAX_CROSSING_HEADER_BYTES} characters`,
    );
  const text = raw.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\0\r\n]/.test(text)) throw new TypeError(`${failed('Headers', method)}: invalid header value "${text}"`);
  return text;
}

let guardOf: (headers: Headers) => { set(guard: HeadersGuard): void };
let listOf: (headers: Headers) => Pair[];
let sortedOf: (headers: Headers) => Pair[];

/** The spec's "sort and combine": one pair per name, except one per `set-cookie` value. */
function sortAndCombine(list: Pair[]): Pair[] {
  const byName = new Map<string, string[]>();
  for (const [name, value] of list) {
    const values = byName.get(name);
    if (values === undefined) byName.set(name, [value]);
    else values.push(value);
  }
  const out: Pair[] = [];
  for (const name of [...byName.keys()].sort()) {
    const values = byName.get(name) as string[];
    if (name === 'set-cookie') for (const value of values) out.push([name, value]);
    else out.push([name, values.join(', ')]);
  }
  return out;
}

/**
 * The pairs a message leaving the isolate carries, read from the private list (not through
 * overridable methods); throws a TypeError past the byte cap.
 */
export function crossingHeaderPairs(headers: Headers, what: string): Pair[] {
  let total = 0;
  for (const [name, value] of listOf(headers)) {
    total += name.length + value.length;
    if (total > MAX_CROSSING_HEADER_BYTES)
      throw new TypeError(`${what} headers add up to more than ${MAX_CROSSING_HEADER_BYTES} bytes`);
  }
  return sortAndCombine(listOf(headers));
}

/** Makes a Headers object read-only (responses from fetch(), Response.error/redirect). */
export function setHeadersGuard(headers: Headers, guard: HeadersGuard): void {
  guardOf(headers).set(guard);
}

export type HeadersInit = Headers | Iterable<Iterable<string>> | Record<string, string> | [string, string][];

/** WebIDL's conversion of `(sequence<sequence<ByteString>> or record<ByteString, ByteString>)`. */
function convertInit(init: unknown): Pair[] {
  if (init === null || (typeof init !== 'object' && typeof init !== 'function')) {
    throw new TypeError(
      `${failed('Headers', 'constructor')}: the init must be an object, an iterable of pairs or a Headers`,
    );
  }
  return toPairs(init, toByteString, failed('Headers', 'constructor'));
}

const iterate = pairIterators<Headers>('Headers', (headers) => sortedOf(headers));

// The class is a property value named as the standard spells it: the bundler renames bindings
// (never property keys), and a class takes its name, and its name in stack traces, from the key.
export const Headers = {
  Headers: class {
    #list: Pair[] = [];
    /** sortAndCombine(#list), kept until the list changes: iterators read it at every step. */
    #sorted: Pair[] | null = null;
    #guard: HeadersGuard = 'none';

    static {
      listOf = (headers) => headers.#list;
      sortedOf = (headers) => (headers.#sorted ??= sortAndCombine(headers.#list));
      guardOf = (headers) => ({
        set: (guard) => {
          headers.#guard = guard;
        },
      });
    }

    constructor(init: unknown = undefined) {
      if (init === undefined) return;
      for (const [name, value] of convertInit(init)) this.#append(name, value, 'constructor');
    }

    #checkMutable(): void {
      if (this.#guard === 'immutable') throw new TypeError('Headers are immutable');
    }

    #changed(list: Pair[]): void {
      this.#list = list;
      this.#sorted = null;
    }

    /** The standard's "append" (the constructor's too, never an overridden method). */
    #append(name: unknown, value: unknown, method: string): void {
      const key = normalizeName(name, method);
      const text = normalizeValue(value, method);
      this.#checkMutable();
      this.#list.push([key, text]);
      this.#sorted = null;
    }

    append(name: string, value: string): void {
      requireArguments(arguments.length, 2, 'Headers', 'append');
      this.#append(name, value, 'append');
    }

    delete(name: string): void {
      requireArguments(arguments.length, 1, 'Headers', 'delete');
      const key = normalizeName(name, 'delete');
      this.#checkMutable();
      if (this.#list.some(([n]) => n === key)) this.#changed(this.#list.filter(([n]) => n !== key));
    }

    get(name: string): string | null {
      requireArguments(arguments.length, 1, 'Headers', 'get');
      const key = normalizeName(name, 'get');
      const values = this.#list.filter(([n]) => n === key).map(([, v]) => v);
      return values.length === 0 ? null : values.join(', ');
    }

    getSetCookie(): string[] {
      return this.#list.filter(([n]) => n === 'set-cookie').map(([, v]) => v);
    }

    has(name: string): boolean {
      requireArguments(arguments.length, 1, 'Headers', 'has');
      const key = normalizeName(name, 'has');
      return this.#list.some(([n]) => n === key);
    }

    set(name: string, value: string): void {
      requireArguments(arguments.length, 2, 'Headers', 'set');
      const key = normalizeName(name, 'set');
      const text = normalizeValue(value, 'set');
      this.#checkMutable();
      const first = this.#list.findIndex(([n]) => n === key);
      if (first < 0) this.#changed([...this.#list, [key, text]]);
      else
        this.#changed(
          this.#list.flatMap((pair, i): Pair[] => (i === first ? [[key, text]] : pair[0] === key ? [] : [pair])),
        );
    }

    forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg: unknown = undefined): void {
      forEachPair(this, sortedOf, callback, thisArg, 'Headers');
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

    static {
      defineIterable(this.prototype, 'Headers');
    }
  },
}.Headers;
export type Headers = InstanceType<typeof Headers>;
