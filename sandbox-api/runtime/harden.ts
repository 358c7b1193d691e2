// Freezes every built-in and every runtime global (with everything reachable from it) once install()
// has defined them and before integration code runs, so one dispatch, or one installation, cannot
// poison what the next one sees. It never freezes globalThis or console.

/** Globals guest code may still change: the global object itself and its console. */
const LEFT_MUTABLE = new Set<PropertyKey>(['globalThis', 'console']);

const ERROR_FIELDS = ['constructor', 'name', 'message'];

const { defineProperty, freeze, getOwnPropertyDescriptor, getPrototypeOf, isFrozen, preventExtensions } = Object;
const { ownKeys } = Reflect;
// Taken before any guest code: hardenLoaded runs after a guest may have rebound these globals
// (a Set whose `has` always answers true would have it freeze nothing).
const SafeSet = Set;
const SafeError = Error;
const SafeDataView = DataView;
const { isView } = ArrayBuffer;

/**
 * Freezing alone breaks ordinary code through the "override mistake": with Error.prototype frozen,
 * `this.name = 'MyError'` in a subclass throws. As SES does, a few data properties commonly
 * assigned on instances become accessors whose setter defines an own property on the instance.
 */
type Overridable = [target: object | undefined, names: readonly PropertyKey[] | 'all-methods'];

/**
 * Which properties keep instance assignment working. Not `constructor` of Array, Promise, RegExp or typed arrays: V8's
 * species fast paths depend on those staying data properties.
 */
function overridable(): Overridable[] {
  const g = globalThis as unknown as Record<string, { prototype?: object } | undefined>;
  const errors = [
    'EvalError',
    'RangeError',
    'ReferenceError',
    'SyntaxError',
    'TypeError',
    'URIError',
    'AggregateError',
    'SuppressedError',
  ];
  return [
    [
      Object.prototype,
      [
        'constructor',
        'toString',
        'toLocaleString',
        'valueOf',
        'hasOwnProperty',
        'isPrototypeOf',
        'propertyIsEnumerable',
      ],
    ],
    [Function.prototype, ['constructor', 'toString']],
    [Error.prototype, [...ERROR_FIELDS, 'toString']],
    ...errors.map((name): Overridable => [g[name]?.prototype, ERROR_FIELDS]),
    [Array.prototype, ['toString', 'toLocaleString']],
    // Buffer polyfills assign most typed-array methods on their own prototype.
    [getPrototypeOf(Uint8Array.prototype) as object, 'all-methods'],
  ];
}

function makeOverridable(target: object, key: PropertyKey): void {
  const descriptor = getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined || !('value' in descriptor) || !descriptor.writable || !descriptor.configurable) return;
  const value: unknown = descriptor.value;
  defineProperty(target, key, {
    get: function getBuiltIn() {
      return value;
    },
    set: function overrideBuiltIn(this: unknown, replacement: unknown) {
      if (this === target)
        throw new TypeError(`Cannot assign to ${String(key)}: built-in prototypes are frozen in the sandbox`);
      defineProperty(this, key, { value: replacement, writable: true, enumerable: true, configurable: true });
    },
    enumerable: descriptor.enumerable,
    configurable: false,
  });
}

/** The Error constructor keeps its two V8 hooks writable (libraries set stackTraceLimit). */
function freezeErrorConstructor(): void {
  if (getOwnPropertyDescriptor(Error, 'prepareStackTrace') === undefined) {
    defineProperty(Error, 'prepareStackTrace', {
      value: undefined,
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }
  for (const key of ownKeys(Error)) {
    const descriptor = getOwnPropertyDescriptor(Error, key)!;
    const keepWritable = key === 'stackTraceLimit' || key === 'prepareStackTrace';
    defineProperty(
      Error,
      key,
      'value' in descriptor
        ? { configurable: false, writable: keepWritable && descriptor.writable }
        : { configurable: false },
    );
  }
  preventExtensions(Error);
}

/**
 * V8's call-site prototype: reachable only through Error.prepareStackTrace, which receives call
 * sites, so it is fetched with a hook installed for a moment (before any guest code runs).
 */
function callSitePrototype(): unknown {
  const previous = getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  let site: unknown;
  const capture = (_error: unknown, sites: unknown[]) => {
    site = sites[0];
    return '';
  };
  defineProperty(Error, 'prepareStackTrace', { value: capture, writable: true, enumerable: false, configurable: true });
  try {
    void new Error('call site').stack;
  } finally {
    if (previous === undefined) Reflect.deleteProperty(Error, 'prepareStackTrace');
    else defineProperty(Error, 'prepareStackTrace', previous);
  }
  return site === undefined ? undefined : getPrototypeOf(site);
}

/** The `stack` accessors V8 gives every error and every Error.captureStackTrace target: shared functions. */
function stackAccessors(): unknown[] {
  const target = {};
  Error.captureStackTrace(target);
  return [getOwnPropertyDescriptor(new Error('stack'), 'stack'), getOwnPropertyDescriptor(target, 'stack')].flatMap(
    (descriptor) => (descriptor === undefined ? [] : [descriptor.get, descriptor.set, descriptor.value]),
  );
}

/**
 * Intrinsics no global names: iterator, generator and async function prototypes, iterator
 * helpers, Intl segment iterators, V8's call sites and stack accessors. Everything reachable from
 * these is frozen too. (%AsyncFromSyncIteratorPrototype% is never exposed to JavaScript by V8.)
 */
function hiddenIntrinsics(): unknown[] {
  const found: unknown[] = [
    callSitePrototype(),
    ...stackAccessors(),
    getPrototypeOf(Uint8Array),
    getPrototypeOf([][Symbol.iterator]()),
    getPrototypeOf(new Map()[Symbol.iterator]()),
    getPrototypeOf(new Set()[Symbol.iterator]()),
    getPrototypeOf(''[Symbol.iterator]()),
    getPrototypeOf(/a/[Symbol.matchAll]('a')),
    getPrototypeOf(function* () {}),
    getPrototypeOf(async function () {}),
    getPrototypeOf(async function* () {}),
  ];
  const iterator = [][Symbol.iterator]() as unknown as { map?: (fn: unknown) => unknown };
  if (typeof iterator.map === 'function') found.push(getPrototypeOf(iterator.map((x: unknown) => x)));
  const IteratorCtor = (globalThis as { Iterator?: { from?: (o: unknown) => unknown } }).Iterator;
  if (typeof IteratorCtor?.from === 'function')
    found.push(getPrototypeOf(IteratorCtor.from({ next: () => ({ done: true }) })));
  const Segmenter = (globalThis as { Intl?: { Segmenter?: new () => { segment(s: string): object } } }).Intl?.Segmenter;
  if (typeof Segmenter === 'function') {
    const segments = new Segmenter().segment('');
    found.push(getPrototypeOf(segments), getPrototypeOf((segments as Iterable<unknown>)[Symbol.iterator]()));
  }
  return found;
}

function freezeOne(value: object): void {
  if (value === SafeError) return freezeErrorConstructor();
  if (isFrozen(value)) return;
  // A typed array with elements cannot be frozen; none is reachable from the built-ins, but a
  // runtime object could hold one: it is sealed against new properties at least.
  if (isView(value) && !(value instanceof SafeDataView)) return void preventExtensions(value);
  freeze(value);
}

/**
 * Freezes everything reachable from the roots through prototypes and property descriptors.
 * With `stopAtFrozen`, a frozen object is not walked into: after a first full pass, everything
 * reachable from a frozen object is frozen already (see hardenRetouched). `walkOnly` objects are
 * walked into but left unfrozen themselves (a snapshot's retouched intrinsics, see hardenRealm).
 */
function freezeGraph(roots: unknown[], skip: Set<unknown>, stopAtFrozen = false, walkOnly?: Set<unknown>): void {
  const seen = new SafeSet<unknown>(skip);
  const pending = [...roots];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) continue;
    seen.add(value);
    if (stopAtFrozen && isFrozen(value)) continue;
    pending.push(getPrototypeOf(value));
    for (const key of ownKeys(value)) {
      const descriptor = getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined) continue;
      if ('value' in descriptor) pending.push(descriptor.value);
      else pending.push(descriptor.get, descriptor.set);
    }
    if (walkOnly?.has(value) !== true) freezeOne(value);
  }
}

/**
 * The intrinsics V8 itself extends when it deserializes a context from a startup snapshot (with
 * flag-gated features such as Promise.try, RegExp.escape, Error.isError, Math.f16round,
 * Symbol.dispose): freezing one of them inside the snapshot makes that deserialization abort the
 * process. A snapshot is therefore hardened without them, and they are frozen once the context
 * exists (hardenRetouched).
 */
function retouchedIntrinsics(): object[] {
  const g = globalThis as unknown as Record<string, { prototype?: object } | undefined>;
  const found: (object | undefined)[] = [
    Promise,
    RegExp,
    Error,
    Math,
    g.Atomics as object | undefined,
    DataView.prototype,
    g.Iterator?.prototype,
    getPrototypeOf(getPrototypeOf(async function* () {}).prototype) as object,
  ];
  return found.filter((value): value is object => value !== undefined);
}

function makeBuiltInsOverridable(): void {
  for (const [target, names] of overridable()) {
    if (target === undefined) continue;
    // `constructor` and the iterator stay data properties: V8 fast paths (species, spread) rely on them.
    const keys =
      names === 'all-methods'
        ? ownKeys(target).filter((key) => key !== 'constructor' && key !== Symbol.iterator)
        : names;
    for (const key of keys) makeOverridable(target, key);
  }
}

/**
 * The values of the global object's data properties, but those left mutable, and the functions of
 * its accessors (the runtime's lazily loaded globals: modules.ts).
 */
function globalValues(): unknown[] {
  const roots: unknown[] = [];
  for (const key of ownKeys(globalThis)) {
    if (LEFT_MUTABLE.has(key)) continue;
    const descriptor = getOwnPropertyDescriptor(globalThis, key);
    if (descriptor === undefined) continue;
    if ('value' in descriptor) roots.push(descriptor.value);
    else roots.push(descriptor.get, descriptor.set);
  }
  return roots;
}

/**
 * Freezes what a runtime module loaded after the realm was hardened exports (modules.ts), and
 * everything it reaches that is not frozen yet, as hardenRealm froze the built-ins.
 */
export function hardenLoaded(exports: unknown): void {
  const g = globalThis as unknown as Record<string, unknown>;
  freezeGraph([exports], new SafeSet([globalThis, g.console]), true);
}

/**
 * Hardens the isolate's realm (see the header). `runtimeHidden` are the runtime's own objects that
 * no global names but guest code receives instances of (the body stream behind `Response#body`):
 * they are frozen like the built-ins, so one dispatch cannot change them for the next. With
 * `deferRetouched`, as when building a startup snapshot, the intrinsics V8 extends at
 * deserialization are left extensible, but what they reach is frozen all the same (their
 * methods, prototypes and accessors, which V8 does not touch): every isolate made from the
 * snapshot then has only those few objects and what V8 added to freeze, not the whole graph
 * behind them (each object a context freezes costs it memory: docs/performance.md).
 * hardenRetouched() must then run in every context made from it before guest code.
 */
export function hardenRealm(options: { deferRetouched?: boolean; runtimeHidden?: readonly unknown[] } = {}): void {
  makeBuiltInsOverridable();
  const g = globalThis as unknown as Record<string, unknown>;
  const skip = new SafeSet<unknown>([globalThis, g.console]);
  const walkOnly = options.deferRetouched ? new SafeSet<unknown>(retouchedIntrinsics()) : undefined;
  freezeGraph([...globalValues(), ...hiddenIntrinsics(), ...(options.runtimeHidden ?? [])], skip, false, walkOnly);
}

/**
 * The second half of hardenRealm({ deferRetouched: true }), in a context deserialized from that
 * snapshot: the deferred intrinsics, every global that is not frozen (those V8 added, such as
 * Float16Array or SuppressedError) and everything they reach that is not frozen yet. Afterwards
 * the realm is in the state hardenRealm() leaves.
 */
export function hardenRetouched(): void {
  makeBuiltInsOverridable();
  // The hidden intrinsics again: V8 makes some afresh in a deserialized context (its call-site
  // prototype among them), so their frozen copies in the snapshot do not carry over.
  const roots = [
    ...retouchedIntrinsics(),
    ...hiddenIntrinsics(),
    ...globalValues().filter(
      (value) => (typeof value === 'object' || typeof value === 'function') && value !== null && !isFrozen(value),
    ),
  ];
  const g = globalThis as unknown as Record<string, unknown>;
  freezeGraph(roots, new SafeSet([globalThis, g.console]), true);
}
