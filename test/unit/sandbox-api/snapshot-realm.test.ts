// Isolates are made from the runtime's startup snapshot (sandbox-api/runtime/snapshot.ts): the
// realm a guest gets from it must be the realm install() builds in a fresh isolate, object for
// object (same globals, same reachable built-ins and runtime objects, each as frozen and with the
// same own keys), and every isolate made from one snapshot must start from its own fresh copy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

/**
 * Every object reachable from the globals, the hidden intrinsics and the runtime's hidden objects, by its first path,
 * with how it is sealed.
 */
const DESCRIBE_REALM = `(() => {
  const { getOwnPropertyDescriptor, getPrototypeOf, isFrozen, isExtensible } = Object;
  const name = (key) => typeof key === 'symbol' ? '[' + String(key) + ']' : key;
  const roots = [['globalThis', globalThis]];
  const hidden = {
    TypedArray: getPrototypeOf(Uint8Array),
    ArrayIterator: getPrototypeOf([][Symbol.iterator]()),
    MapIterator: getPrototypeOf(new Map()[Symbol.iterator]()),
    SetIterator: getPrototypeOf(new Set()[Symbol.iterator]()),
    StringIterator: getPrototypeOf(''[Symbol.iterator]()),
    RegExpStringIterator: getPrototypeOf(/a/[Symbol.matchAll]('a')),
    GeneratorFunction: getPrototypeOf(function* () {}),
    AsyncFunction: getPrototypeOf(async function () {}),
    AsyncGeneratorFunction: getPrototypeOf(async function* () {}),
    IteratorHelper: getPrototypeOf([][Symbol.iterator]().map((x) => x)),
    WrapForValidIterator: getPrototypeOf(Iterator.from({ next: () => ({ done: true }) })),
    // V8 makes some of these afresh in a deserialised context: they must be frozen there too.
    CallSite: (() => {
      let site;
      const previous = Error.prepareStackTrace;
      Error.prepareStackTrace = (_error, sites) => { site = sites[0]; return ''; };
      try { void new Error('call site').stack; } finally { Error.prepareStackTrace = previous; }
      return site === undefined ? undefined : getPrototypeOf(site);
    })(),
    ErrorStackGetter: getOwnPropertyDescriptor(new Error('stack'), 'stack')?.get,
    ErrorStackSetter: getOwnPropertyDescriptor(new Error('stack'), 'stack')?.set,
    Segments: getPrototypeOf(new Intl.Segmenter().segment('')),
    SegmentIterator: getPrototypeOf(new Intl.Segmenter().segment('')[Symbol.iterator]()),
    ResponseBodyStream: getPrototypeOf(new Response('body').body),
  };
  for (const key of Object.keys(hidden).sort()) roots.push(['%' + key + '%', hidden[key]]);
  const seen = new Map();
  const queue = [...roots];
  while (queue.length > 0) {
    const [path, value] = queue.shift();
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) continue;
    const keys = Reflect.ownKeys(value).map(name).sort();
    seen.set(value, { path, frozen: isFrozen(value), extensible: isExtensible(value), keys: keys.join(',') });
    queue.push([path + '.__proto__', getPrototypeOf(value)]);
    for (const key of Reflect.ownKeys(value).sort((a, b) => String(name(a)).localeCompare(String(name(b))))) {
      const descriptor = getOwnPropertyDescriptor(value, key);
      if ('value' in descriptor) queue.push([path + '.' + name(key), descriptor.value]);
      else {
        queue.push([path + '.' + name(key) + '<get>', descriptor.get]);
        queue.push([path + '.' + name(key) + '<set>', descriptor.set]);
      }
    }
  }
  const realm = {};
  for (const entry of seen.values()) realm[entry.path] = entry.frozen + ' ' + entry.extensible + ' ' + entry.keys;
  return JSON.stringify(realm);
})()`;

let installed: Harness;
let snapshotted: Harness;

beforeAll(async () => {
  installed = await Harness.create({ runtime: 'install' });
  snapshotted = await Harness.create({ runtime: 'snapshot' });
});
afterAll(() => {
  installed.dispose();
  snapshotted.dispose();
});

describe('the realm made from the runtime snapshot', () => {
  it('is the realm install() builds: the same objects, each as frozen, with the same own keys', async () => {
    const expected = JSON.parse(await installed.evaluate<string>(DESCRIBE_REALM)) as Record<string, string>;
    const actual = JSON.parse(await snapshotted.evaluate<string>(DESCRIBE_REALM)) as Record<string, string>;
    expect(Object.keys(expected).length).toBeGreaterThan(700);
    expect(actual).toEqual(expected);
    // And frozen in both (a difference alone would miss a root left unfrozen by both paths).
    for (const root of ['%CallSite%', '%ErrorStackGetter%', '%Segments%', '%SegmentIterator%', '%ResponseBodyStream%'])
      expect(actual[root]).toMatch(/^true false /);
  });

  it('has no bootstrap left, no Atomics or WebAssembly, and the SharedArrayBuffer V8 adds, frozen', async () => {
    expect(
      await snapshotted.evaluate<string>(
        '[typeof __ih_bootstrap, typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly].join()',
      ),
    ).toBe('undefined,function,undefined,undefined');
    const frozen =
      'Object.isFrozen(SharedArrayBuffer) && Object.isFrozen(SharedArrayBuffer.prototype) && ' +
      'Object.isFrozen(Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength").get)';
    expect(await snapshotted.evaluate<boolean>(frozen)).toBe(true);
    expect(await installed.evaluate<boolean>(frozen)).toBe(true);
  });

  it('gives every isolate its own fresh copy: module state, the global object and Math.random start over', async () => {
    const other = await Harness.create();
    try {
      await snapshotted.evaluate('globalThis.leftBehind = 1; 0');
      expect(await other.evaluate<string>('typeof leftBehind')).toBe('undefined');
      const draws = await Promise.all([snapshotted, other].map((harness) => harness.evaluate<number>('Math.random()')));
      expect(draws[0]).not.toBe(draws[1]);
    } finally {
      other.dispose();
    }
  });
});
