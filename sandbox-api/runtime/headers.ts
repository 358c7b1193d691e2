// Headers per the Fetch standard: case-insensitive names, values combined with ", ", iteration
// sorted by lowercase name, `set-cookie` kept apart (getSetCookie). No forbidden header names:
// this is a server runtime. Pure: no bridge.

type Pair = [string, string];
export type HeadersGuard = 'none' | 'immutable';

/**
 * Most header bytes (names plus values) a request or response may carry out of the isolate. The
 * copy out duplicates every value, so 200 headers referencing one large string would become a
 * copy 200 times its size in the worker and the host: the sum is checked before anything crosses.
 */
export const MAX_CROSSING_HEADER_BYTES = 64 * 1024;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function normalizeName(name: unknown): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Invalid header name: "${text}"`);
  return text.toLowerCase();
}

function normalizeValue(value: unknown): string {
  const raw = String(value);
  // A value this long could never leave the isolate (see crossingHeaderPairs): refuse it before
  // scanning it, so one huge string appended many times costs nothing.
  if (raw.length > MAX_CROSSING_HEADER_BYTES) throw new TypeError(`Invalid header value: longer than ${MAX_CROSSING_HEADER_BYTES} characters`);
  const text = raw.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\0\r\n]/.test(text) || /[^\u0000-\u00ff]/.test(text)) throw new TypeError(`Invalid header value: "${text}"`);
  return text;
}

let guardOf: (headers: Headers) => { set(guard: HeadersGuard): void };
let listOf: (headers: Headers) => Pair[];

/** The spec's "sort and combine": one pair per name, except one per `set-cookie` value. */
function sortAndCombine(list: Pair[]): Pair[] {
  const names = [...new Set(list.map(([n]) => n))].sort();
  const out: Pair[] = [];
  for (const name of names) {
    const values = list.filter(([n]) => n === name).map(([, v]) => v);
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
    if (total > MAX_CROSSING_HEADER_BYTES) throw new TypeError(`${what} headers add up to more than ${MAX_CROSSING_HEADER_BYTES} bytes`);
  }
  return sortAndCombine(listOf(headers));
}

/** Makes a Headers object read-only (responses from fetch(), Response.error/redirect). */
export function setHeadersGuard(headers: Headers, guard: HeadersGuard): void {
  guardOf(headers).set(guard);
}

export type HeadersInit = Headers | Iterable<Iterable<string>> | Record<string, string> | [string, string][];

export class Headers {
  #list: Pair[] = [];
  #guard: HeadersGuard = 'none';

  static {
    listOf = (headers) => headers.#list;
    guardOf = (headers) => ({
      set: (guard) => {
        headers.#guard = guard;
      },
    });
  }

  constructor(init?: HeadersInit | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object' && typeof init !== 'function') {
      throw new TypeError('Headers init must be an object, an iterable of pairs or a Headers');
    }
    const source = init as unknown as Record<PropertyKey, unknown>;
    if (typeof source[Symbol.iterator] === 'function') {
      for (const pair of source as unknown as Iterable<unknown>) {
        if (pair === null || typeof pair !== 'object' || typeof (pair as Iterable<unknown>)[Symbol.iterator] !== 'function') {
          throw new TypeError('Each header init pair must be an iterable [name, value]');
        }
        const items = [...(pair as Iterable<unknown>)];
        if (items.length !== 2) throw new TypeError('Each header init pair must have exactly two items');
        this.append(items[0] as string, items[1] as string);
      }
      return;
    }
    for (const key of Reflect.ownKeys(source)) {
      if (typeof key !== 'string') continue;
      if (Reflect.getOwnPropertyDescriptor(source, key)?.enumerable) this.append(key, source[key] as string);
    }
  }

  #checkMutable(): void {
    if (this.#guard === 'immutable') throw new TypeError('Headers are immutable');
  }

  append(name: string, value: string): void {
    const key = normalizeName(name);
    const text = normalizeValue(value);
    this.#checkMutable();
    this.#list.push([key, text]);
  }

  delete(name: string): void {
    const key = normalizeName(name);
    this.#checkMutable();
    this.#list = this.#list.filter(([n]) => n !== key);
  }

  get(name: string): string | null {
    const key = normalizeName(name);
    const values = this.#list.filter(([n]) => n === key).map(([, v]) => v);
    return values.length === 0 ? null : values.join(', ');
  }

  getSetCookie(): string[] {
    return this.#list.filter(([n]) => n === 'set-cookie').map(([, v]) => v);
  }

  has(name: string): boolean {
    const key = normalizeName(name);
    return this.#list.some(([n]) => n === key);
  }

  set(name: string, value: string): void {
    const key = normalizeName(name);
    const text = normalizeValue(value);
    this.#checkMutable();
    const first = this.#list.findIndex(([n]) => n === key);
    if (first < 0) this.#list.push([key, text]);
    else {
      this.#list[first] = [key, text];
      this.#list = this.#list.filter(([n], i) => i <= first || n !== key);
    }
  }

  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError('Headers.forEach: callback is not a function');
    for (const [name, value] of sortAndCombine(this.#list)) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const [name, value] of sortAndCombine(this.#list)) yield [name, value];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of sortAndCombine(this.#list)) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of sortAndCombine(this.#list)) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
