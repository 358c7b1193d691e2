// What structuredClone needs to know of each kind of value: how to recognise it by its internal
// slots (brand checks through the intrinsics captured before guest code ran, never a guest-visible
// method or property), how to copy the leaf kinds, errors and the transfer list, and DataCloneError.
// Never calls a method of the value itself but the property reads the HTML standard makes.

export interface CloneDeps {
  Blob: new (parts: unknown[], options: object) => object;
  File: new (parts: unknown[], name: string, options: object) => object;
  /** The bytes of a runtime Blob (not a copy); throws for an object that is not one. */
  blobBytes(blob: object): Uint8Array;
  /** Instances of the runtime's other Web IDL classes (Request, Headers, AbortSignal…): not serializable. */
  isPlatformObject(value: object): boolean;
  /** The realm's Float16Array (V8 adds it to each context): undefined where there is none. */
  Float16Array(): unknown;
  /** Whether a value is a SharedArrayBuffer, by its internal slot (V8 adds the class to each context). */
  isSharedArrayBuffer(value: object): boolean;
}

export type Kind =
  | 'boolean'
  | 'number'
  | 'bigint'
  | 'string'
  | 'date'
  | 'regexp'
  | 'arraybuffer'
  | 'typedarray'
  | 'dataview'
  | 'map'
  | 'set'
  | 'domexception'
  | 'error'
  | 'array'
  | 'blob'
  | 'file'
  | 'object';

type Fn = (...args: never[]) => unknown;

const call = Reflect.apply as (fn: Fn, receiver: unknown, args: unknown[]) => unknown;
const { getOwnPropertyDescriptor, getPrototypeOf, defineProperty } = Object;
const getter = (prototype: object, key: PropertyKey): Fn => getOwnPropertyDescriptor(prototype, key)!.get as Fn;

const ObjectPrototype = Object.prototype;
const objectToString = Object.prototype.toString as Fn;
const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayName = getter(TypedArrayPrototype, Symbol.toStringTag);
const typedArrayBuffer = getter(TypedArrayPrototype, 'buffer');
const typedArrayOffset = getter(TypedArrayPrototype, 'byteOffset');
const typedArrayLength = getter(TypedArrayPrototype, 'length');
const dataViewBuffer = getter(DataView.prototype, 'buffer');
const dataViewOffset = getter(DataView.prototype, 'byteOffset');
const dataViewLength = getter(DataView.prototype, 'byteLength');
const bufferLength = getter(ArrayBuffer.prototype, 'byteLength');
const bufferResizable = getter(ArrayBuffer.prototype, 'resizable');
const bufferMaxLength = getter(ArrayBuffer.prototype, 'maxByteLength');
const bufferDetached = getter(ArrayBuffer.prototype, 'detached');
const bufferTransfer = ArrayBuffer.prototype.transfer as Fn;
const regExpSource = getter(RegExp.prototype, 'source');
const mapEntries = Map.prototype.entries as Fn;
const setValues = Set.prototype.values as Fn;
const mapSize = getter(Map.prototype, 'size');
const setSize = getter(Set.prototype, 'size');
const valueOf = {
  boolean: Boolean.prototype.valueOf as Fn,
  number: Number.prototype.valueOf as Fn,
  bigint: BigInt.prototype.valueOf as Fn,
  string: String.prototype.valueOf as Fn,
  date: Date.prototype.getTime as Fn,
};

/** RegExp flags in the order RegExp#flags gives them, each read through its brand-checking getter. */
const REGEXP_FLAGS = (
  [
    ['hasIndices', 'd'],
    ['global', 'g'],
    ['ignoreCase', 'i'],
    ['multiline', 'm'],
    ['dotAll', 's'],
    ['unicode', 'u'],
    ['unicodeSets', 'v'],
    ['sticky', 'y'],
  ] as const
)
  .filter(([name]) => getOwnPropertyDescriptor(RegExp.prototype, name) !== undefined)
  .map(([name, flag]) => [getter(RegExp.prototype, name), flag] as const);

const TYPED_ARRAYS = new Map<unknown, unknown>([
  ['Int8Array', Int8Array],
  ['Uint8Array', Uint8Array],
  ['Uint8ClampedArray', Uint8ClampedArray],
  ['Int16Array', Int16Array],
  ['Uint16Array', Uint16Array],
  ['Int32Array', Int32Array],
  ['Uint32Array', Uint32Array],
  ['Float32Array', Float32Array],
  ['Float64Array', Float64Array],
  ['BigInt64Array', BigInt64Array],
  ['BigUint64Array', BigUint64Array],
]);

const ERRORS = new Map<unknown, ErrorConstructor>([
  ['Error', Error],
  ['EvalError', EvalError],
  ['RangeError', RangeError],
  ['ReferenceError', ReferenceError],
  ['SyntaxError', SyntaxError],
  ['TypeError', TypeError],
  ['URIError', URIError],
]);

/**
 * Objects with internal slots no clone can carry, known by their @@toStringTag: a Promise has no
 * brand check without side effects. A forged tag makes an object uncloneable, nothing more.
 */
const UNCLONEABLE = new Set<unknown>([
  'Promise',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'FinalizationRegistry',
  'Generator',
  'AsyncGenerator',
  'Module',
  'Array Iterator',
  'Map Iterator',
  'Set Iterator',
  'String Iterator',
  'RegExp String Iterator',
  'Iterator Helper',
  'Segmenter String Iterator',
  'Segments',
  'Symbol',
  'DisposableStack',
  'AsyncDisposableStack',
  'SharedArrayBuffer',
]);

function branded(fn: Fn, value: unknown): boolean {
  try {
    call(fn, value, []);
    return true;
  } catch {
    return false;
  }
}

function inherits(value: object, prototype: object): boolean {
  for (let current = getPrototypeOf(value); current !== null; current = getPrototypeOf(current))
    if (current === prototype) return true;
  return false;
}

export function createKinds(deps: CloneDeps) {
  const BlobPrototype = deps.Blob.prototype as object;
  const FilePrototype = deps.File.prototype as object;
  const blobType = getter(BlobPrototype, 'type');
  const fileName = getter(FilePrototype, 'name');
  const fileLastModified = getter(FilePrototype, 'lastModified');
  const DOMExceptionPrototype = DOMException.prototype as object;

  const dataCloneError = (message: string) => new DOMException(message, 'DataCloneError');

  const isError = (value: object): boolean => {
    const check = (Error as unknown as { isError?: (value: unknown) => boolean }).isError;
    return typeof check === 'function' ? check(value) : call(objectToString, value, []) === '[object Error]';
  };

  function describe(value: object): string {
    if (typeof value === 'function') {
      const name = getOwnPropertyDescriptor(value, 'name')?.value;
      return typeof name === 'string' && name !== '' ? `function ${name}` : 'An anonymous function';
    }
    return `#<${(call(objectToString, value, []) as string).slice(8, -1)}>`;
  }

  function uncloneable(value: object): never {
    throw dataCloneError(`${describe(value)} could not be cloned.`);
  }

  /** The kind of a non-callable object, or a DataCloneError for one that cannot be cloned. */
  function classify(value: object): Kind {
    if (ArrayBuffer.isView(value)) return call(typedArrayName, value, []) === undefined ? 'dataview' : 'typedarray';
    if (Array.isArray(value)) return 'array';
    if (isError(value)) return inherits(value, DOMExceptionPrototype) ? 'domexception' : 'error';
    // The tag names the likely kind (fast); the brand check confirms it (a forged tag does not).
    const tag = (call(objectToString, value, []) as string).slice(8, -1);
    switch (tag) {
      case 'Boolean':
      case 'Number':
      case 'BigInt':
      case 'String':
      case 'Date': {
        const kind = tag.toLowerCase() as keyof typeof valueOf;
        if (branded(valueOf[kind], value)) return kind;
        break;
      }
      case 'RegExp':
        if (value !== RegExp.prototype && branded(regExpSource, value)) return 'regexp';
        break;
      case 'ArrayBuffer':
        if (branded(bufferLength, value)) return 'arraybuffer';
        break;
      case 'Map':
        if (branded(mapSize, value)) return 'map';
        break;
      case 'Set':
        if (branded(setSize, value)) return 'set';
        break;
      default:
        if (UNCLONEABLE.has(tag) || tag.startsWith('Intl.')) uncloneable(value);
    }
    // The HTML standard refuses shared memory outside a cross-origin isolated realm, which this is
    // not. A SharedArrayBuffer hiding its tag is found by its brand; only objects that are not
    // plain are asked (the check throws for the rest), so one posing as a plain object clones as
    // one, holding no memory.
    if (getPrototypeOf(value) !== ObjectPrototype && deps.isSharedArrayBuffer(value)) uncloneable(value);
    if (inherits(value, FilePrototype)) return 'file';
    if (inherits(value, BlobPrototype)) return 'blob';
    if (deps.isPlatformObject(value)) uncloneable(value);
    return 'object';
  }

  function cloneBuffer(value: object): ArrayBuffer {
    if (call(bufferDetached, value, [])) throw dataCloneError('An ArrayBuffer is detached and could not be cloned.');
    const length = call(bufferLength, value, []) as number;
    const out = call(bufferResizable, value, [])
      ? new ArrayBuffer(length, { maxByteLength: call(bufferMaxLength, value, []) as number })
      : new ArrayBuffer(length);
    new Uint8Array(out).set(new Uint8Array(value as ArrayBuffer));
    return out;
  }

  function typedArrayConstructor(name: unknown): new (buffer: ArrayBuffer, offset: number, length: number) => object {
    const found = name === 'Float16Array' ? deps.Float16Array() : TYPED_ARRAYS.get(name);
    if (typeof found !== 'function') throw dataCloneError(`${String(name)} could not be cloned.`);
    return found as new (
      buffer: ArrayBuffer,
      offset: number,
      length: number,
    ) => object;
  }

  function blobBytes(value: object): Uint8Array {
    try {
      return deps.blobBytes(value);
    } catch {
      return uncloneable(value);
    }
  }

  /** A copy of a leaf kind; `buffer` clones a view's buffer through the walk's memory (shared buffers stay shared). */
  function cloneLeaf(kind: Kind, value: object, buffer: (value: object) => unknown): object {
    switch (kind) {
      case 'boolean':
      case 'number':
      case 'bigint':
      case 'string':
        return Object(call(valueOf[kind], value, []));
      case 'date':
        return new Date(call(valueOf.date, value, []) as number);
      case 'regexp': {
        let flags = '';
        for (const [read, flag] of REGEXP_FLAGS) if (call(read, value, [])) flags += flag;
        return new RegExp(call(regExpSource, value, []) as string, flags);
      }
      case 'arraybuffer':
        return cloneBuffer(value);
      case 'typedarray': {
        const Constructor = typedArrayConstructor(call(typedArrayName, value, []));
        const out = buffer(call(typedArrayBuffer, value, []) as object) as ArrayBuffer;
        return new Constructor(
          out,
          call(typedArrayOffset, value, []) as number,
          call(typedArrayLength, value, []) as number,
        );
      }
      case 'dataview': {
        const out = buffer(call(dataViewBuffer, value, []) as object) as ArrayBuffer;
        return new DataView(out, call(dataViewOffset, value, []) as number, call(dataViewLength, value, []) as number);
      }
      case 'domexception': {
        const { name, message } = value as { name?: unknown; message?: unknown };
        return new DOMException(
          message === undefined ? '' : String(message),
          name === undefined ? 'Error' : String(name),
        );
      }
      case 'file': {
        const bytes = blobBytes(value);
        const options = { type: call(blobType, value, []), lastModified: call(fileLastModified, value, []) };
        return new deps.File([bytes], call(fileName, value, []) as string, options);
      }
      case 'blob':
        return new deps.Blob([blobBytes(value)], { type: call(blobType, value, []) });
      default:
        return uncloneable(value);
    }
  }

  /** A new error of the same standard type (else Error) with the message and stack, as V8's serializer keeps them. */
  function newError(value: object): Error {
    const name = (value as { name?: unknown }).name;
    const message = getOwnPropertyDescriptor(value, 'message');
    const Constructor = ERRORS.get(name) ?? Error;
    const out =
      message !== undefined && 'value' in message ? new Constructor(String(message.value)) : new Constructor();
    const stack = (value as { stack?: unknown }).stack;
    if (typeof stack === 'string')
      defineProperty(out, 'stack', { value: stack, writable: true, enumerable: false, configurable: true });
    return out;
  }

  /**
   * An error's own data property `cause`, cloned (after the error is in the walk's memory: a cause may be the error).
   */
  function copyCause(value: object, out: Error, clone: (value: unknown) => unknown): void {
    const cause = getOwnPropertyDescriptor(value, 'cause');
    if (cause === undefined || !('value' in cause)) return;
    defineProperty(out, 'cause', { value: clone(cause.value), writable: true, enumerable: false, configurable: true });
  }

  /** StructuredSerializeOptions' transfer list, checked: distinct ArrayBuffers that are not detached. */
  function transferList(options: unknown): object[] {
    if (options === undefined || options === null) return [];
    if (typeof options !== 'object' && typeof options !== 'function')
      throw new TypeError(
        "Failed to execute 'structuredClone': The provided value is not of type 'StructuredSerializeOptions'.",
      );
    const transfer = (options as { transfer?: unknown }).transfer;
    if (transfer === undefined) return [];
    if (
      (typeof transfer !== 'object' && typeof transfer !== 'function') ||
      transfer === null ||
      typeof (transfer as Iterable<unknown>)[Symbol.iterator] !== 'function'
    ) {
      throw new TypeError("Failed to execute 'structuredClone': The provided value cannot be converted to a sequence.");
    }
    const list: object[] = [];
    for (const item of transfer as Iterable<unknown>) {
      if ((typeof item !== 'object' && typeof item !== 'function') || item === null)
        throw new TypeError("Failed to execute 'structuredClone': Failed to convert value to 'object'.");
      list.push(item);
    }
    const seen = new Set<object>();
    for (let index = 0; index < list.length; index++) {
      const item = list[index];
      if (!branded(bufferLength, item))
        throw dataCloneError(`Value at index ${index} does not have a transferable type.`);
      if (seen.has(item))
        throw dataCloneError(`ArrayBuffer at index ${index} is a duplicate of an earlier ArrayBuffer.`);
      if (call(bufferDetached, item, [])) throw dataCloneError(`ArrayBuffer at index ${index} is already detached.`);
      seen.add(item);
    }
    return list;
  }

  return {
    dataCloneError,
    describe,
    classify,
    cloneLeaf,
    newError,
    copyCause,
    transferList,
    arrayLength: (value: object): number => getOwnPropertyDescriptor(value, 'length')?.value as number,
    mapEntries: (value: object): [unknown, unknown][] => [
      ...(call(mapEntries, value, []) as Iterable<[unknown, unknown]>),
    ],
    setValues: (value: object): unknown[] => [...(call(setValues, value, []) as Iterable<unknown>)],
    /** Detaches a transferred ArrayBuffer (its contents went to the clone, copied). */
    detach: (value: object): void => void call(bufferTransfer, value, []),
  };
}
