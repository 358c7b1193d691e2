// The WebIDL rules the runtime's interfaces share: argument counts, ByteString/USVString and
// record conversions, class strings, and pair iterators (`iterable<K, V>`: entries/keys/values
// over a list read afresh at every step, "<Interface> Iterator" objects over %IteratorPrototype%).
// Pure; never exposes a constructor of its own (iterator prototypes have none).

export type IterationKind = 'key' | 'value' | 'key+value';
type Pairs = readonly (readonly [unknown, unknown])[];

/** %IteratorPrototype%, read while the runtime is built (before any guest code). */
const ITERATOR_PROTOTYPE = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())) as object;

/** The prefix of a TypeError an operation throws, as browsers word it. */
export function failed(interfaceName: string, method: string): string {
  return method === 'constructor'
    ? `Failed to construct '${interfaceName}'`
    : `Failed to execute '${method}' on '${interfaceName}'`;
}

/** WebIDL's "N arguments required" TypeError for a call with fewer. */
export function requireArguments(given: number, required: number, interfaceName: string, method: string): void {
  if (given < required)
    throw new TypeError(
      `${failed(interfaceName, method)}: ${required} argument${required === 1 ? '' : 's'} ` +
        `required, but only ${given} present.`,
    );
}

/** ToString as WebIDL does it: a Symbol is a TypeError (String(symbol) would not throw). */
export function toDOMString(value: unknown): string {
  return `${value as string}`;
}

/** DOMString then lone surrogates replaced by U+FFFD. */
export function toUSVString(value: unknown): string {
  return toDOMString(value).toWellFormed();
}

/** DOMString whose code units must all be bytes. */
export function toByteString(value: unknown): string {
  const text = toDOMString(value);
  if (/[^\u0000-\u00ff]/.test(text))
    throw new TypeError(`The string contains a character above U+00FF: "${text.slice(0, 64)}"`);
  return text;
}

/**
 * WebIDL's record<K, V> conversion: own enumerable string and symbol keys in [[OwnPropertyKeys]]
 * order, each key converted before its value is read; a key seen again keeps its first position.
 */
export function toRecord(
  object: object,
  convertKey: (key: unknown) => string,
  convertValue: (value: unknown) => string,
): [string, string][] {
  const result = new Map<string, string>();
  for (const key of Reflect.ownKeys(object)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
    if (descriptor === undefined || !descriptor.enumerable) continue;
    const typedKey = convertKey(key);
    result.set(typedKey, convertValue((object as Record<PropertyKey, unknown>)[key]));
  }
  return [...result];
}

/**
 * WebIDL's sequence<T> conversion of an object already known to have the iterator `method`:
 * each item converted as it is taken.
 */
export function toSequence<T>(object: object, method: unknown, convert: (item: unknown) => T, what: string): T[] {
  if (typeof method !== 'function')
    throw new TypeError(`${what}: The provided value cannot be converted to a sequence.`);
  const iterator = Reflect.apply(method, object, []) as Iterator<unknown>;
  if (iterator === null || (typeof iterator !== 'object' && typeof iterator !== 'function'))
    throw new TypeError(`${what}: the iterator is not an object`);
  const next = iterator.next;
  const items: T[] = [];
  for (;;) {
    const step = Reflect.apply(next, iterator, []) as IteratorResult<unknown>;
    if (step === null || (typeof step !== 'object' && typeof step !== 'function'))
      throw new TypeError(`${what}: the iterator result is not an object`);
    if (step.done) return items;
    items.push(convert(step.value));
  }
}

/**
 * The usual init of a pair list (Headers, URLSearchParams): `(sequence<sequence<T>> or
 * record<T, T>)`, chosen by whether the object has @@iterator; every pair must have two items.
 */
export function toPairs(init: object, convert: (value: unknown) => string, what: string): [string, string][] {
  const method = (init as Record<PropertyKey, unknown>)[Symbol.iterator];
  if (method === undefined || method === null) return toRecord(init, convert, convert);
  const pairs = toSequence(
    init,
    method,
    (item) => {
      if (item === null || (typeof item !== 'object' && typeof item !== 'function'))
        throw new TypeError(`${what}: each pair must be an iterable [name, value]`);
      return toSequence(item, (item as Record<PropertyKey, unknown>)[Symbol.iterator], convert, what);
    },
    what,
  );
  for (const pair of pairs)
    if (pair.length !== 2) throw new TypeError(`${what}: each pair must have exactly two items`);
  return pairs as [string, string][];
}

/**
 * The class string WebIDL gives an interface's prototype, as a data property (so
 * `Object.prototype.toString` says `[object <name>]`). Members stay non-enumerable, as classes
 * make them: making each enumerable reshapes every prototype, a cost to every isolate.
 */
export function defineInterface(prototype: object, name: string): void {
  Object.defineProperty(prototype, Symbol.toStringTag, {
    value: name,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}

/**
 * A maker of iterators over `pairsOf(target)`, tagged `${name} Iterator`. pairsOf runs on every
 * next() and must be cheap (the caller caches what it sorts). The iterator prototype is made, and
 * frozen like the built-ins, the first time one is asked for: an isolate that never iterates does
 * not hold it.
 */
export function pairIterators<T>(
  name: string,
  pairsOf: (target: T) => Pairs,
): (target: T, kind: IterationKind) => object {
  let make: ((target: T, kind: IterationKind) => object) | null = null;
  return (target, kind) => (make ??= iteratorMaker(name, pairsOf))(target, kind);
}

function iteratorMaker<T>(name: string, pairsOf: (target: T) => Pairs): (target: T, kind: IterationKind) => object {
  let make!: (target: T, kind: IterationKind) => object;
  const prototype = class {
    #target!: T;
    #kind!: IterationKind;
    #index = 0;

    static {
      make = (target, kind) => {
        const iterator = new this();
        iterator.#target = target;
        iterator.#kind = kind;
        return iterator;
      };
    }

    next(): IteratorResult<unknown> {
      // The private fields are the brand check: next() on anything else throws a TypeError.
      const kind = this.#kind;
      const pairs = pairsOf(this.#target);
      const index = this.#index;
      if (index >= pairs.length) return { value: undefined, done: true };
      this.#index = index + 1;
      const [key, value] = pairs[index];
      return { value: kind === 'key' ? key : kind === 'value' ? value : [key, value], done: false };
    }
  }.prototype;
  Object.setPrototypeOf(prototype, ITERATOR_PROTOTYPE);
  Reflect.deleteProperty(prototype, 'constructor');
  Object.defineProperty(prototype, 'next', { enumerable: true });
  Object.defineProperty(prototype, Symbol.toStringTag, { value: `${name} Iterator`, configurable: true });
  // Made after the realm was hardened: frozen here, with the one function it holds (what else it
  // reaches, %IteratorPrototype% and Function.prototype, the realm froze already).
  Object.freeze(prototype.next);
  Object.freeze(prototype);
  return make;
}

/** WebIDL's forEach of a pair iterable: the list is read again after every callback. */
export function forEachPair<T>(
  target: T,
  pairsOf: (target: T) => Pairs,
  callback: unknown,
  thisArg: unknown,
  what: string,
): void {
  if (typeof callback !== 'function') throw new TypeError(`${what}.forEach: the callback is not a function`);
  for (let index = 0; index < pairsOf(target).length; index++) {
    const [key, value] = pairsOf(target)[index];
    Reflect.apply(callback, thisArg, [value, key, target]);
  }
}

/**
 * defineInterface, and what WebIDL's `iterable<K, V>` adds beside the interface's own methods:
 * @@iterator is the very function `entries` is.
 */
export function defineIterable(prototype: { entries: unknown }, name: string): void {
  defineInterface(prototype, name);
  Object.defineProperty(prototype, Symbol.iterator, {
    value: prototype.entries,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
