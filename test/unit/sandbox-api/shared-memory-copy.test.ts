// The copy of what crosses to the host (sandbox-api/runtime/modules/shared-memory.ts), run in Node,
// which has the same intrinsics: nothing it returns holds shared memory, views on ordinary memory
// go on as they are, shared ones become copies of the same kind and bytes, and every other value
// is rebuilt, read once, so no guest getter can answer one thing to the check and another later.
import { isSharedArrayBuffer } from 'node:util/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedBufferLength, takeLateIntrinsics } from '../../../sandbox-api/runtime/late-intrinsics.ts';
import { createSharedMemory } from '../../../sandbox-api/runtime/modules/shared-memory.ts';

let unshared: (value: unknown) => unknown;
beforeAll(() => {
  takeLateIntrinsics();
  ({ unshared } = createSharedMemory({ SharedArrayBuffer, sharedBufferLength }));
});

function sharedBytes(bytes: number[]): Uint8Array {
  const view = new Uint8Array(new SharedArrayBuffer(bytes.length));
  view.set(bytes);
  return view;
}

/** Whether anything reachable from `value` is, or views, a SharedArrayBuffer. */
function holdsShared(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (ArrayBuffer.isView(value)) return isSharedArrayBuffer(value.buffer);
  if (isSharedArrayBuffer(value)) return true;
  return Object.values(value).some(holdsShared);
}

describe("the shared-memory module's copy", () => {
  it('passes primitives, and views and buffers of ordinary memory, through as they are', () => {
    const view = new Uint8Array([1, 2]);
    const buffer = new ArrayBuffer(2);
    for (const value of [null, undefined, 1, 'text', true, 2n, view, buffer]) expect(unshared(value)).toBe(value);
  });

  it('copies a view on shared memory into a view of the same kind, offset and length on an ArrayBuffer', () => {
    const shared = new SharedArrayBuffer(16);
    new Uint8Array(shared).set(Array.from({ length: 16 }, (_, index) => index));
    for (const view of [
      new Uint8Array(shared, 2, 5),
      new Uint16Array(shared, 4, 3),
      new Float64Array(shared, 8, 1),
      new DataView(shared, 3, 6),
    ]) {
      const copy = unshared(view) as ArrayBufferView;
      expect(copy).not.toBe(view);
      expect(copy.constructor).toBe(view.constructor);
      expect(copy.buffer).toBeInstanceOf(ArrayBuffer);
      expect(copy.byteOffset).toBe(0);
      expect(new Uint8Array(copy.buffer)).toEqual(new Uint8Array(shared, view.byteOffset, view.byteLength).slice());
    }
  });

  it('copies a SharedArrayBuffer into an ArrayBuffer, and one that hides its kind holds no memory', () => {
    const shared = sharedBytes([7, 8, 9]).buffer as SharedArrayBuffer;
    const copy = unshared(shared) as ArrayBuffer;
    expect(copy).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(copy)]).toEqual([7, 8, 9]);
    // Posing as an ArrayBuffer, or as a plain object, or renamed: never handed on as the shared memory itself.
    for (const disguised of [
      Object.setPrototypeOf(new SharedArrayBuffer(2), ArrayBuffer.prototype),
      Object.setPrototypeOf(new SharedArrayBuffer(2), Object.prototype),
      Object.setPrototypeOf(new SharedArrayBuffer(2), null),
    ]) {
      expect(holdsShared(unshared(disguised))).toBe(false);
    }
  });

  it('rebuilds arrays and objects, deep, without shared memory and without changing what they say', () => {
    const request = {
      url: 'https://example.com/',
      headers: [['a', 'b']],
      body: sharedBytes([1, 2, 3]),
      nested: { views: [sharedBytes([4])], plain: new Uint8Array([5]) },
    };
    const copy = unshared(request) as typeof request;
    expect(holdsShared(copy)).toBe(false);
    expect(copy).not.toBe(request);
    expect(copy.headers).not.toBe(request.headers);
    expect(copy).toEqual({
      url: 'https://example.com/',
      headers: [['a', 'b']],
      body: new Uint8Array([1, 2, 3]),
      nested: { views: [new Uint8Array([4])], plain: new Uint8Array([5]) },
    });
    // The ordinary view inside is handed on itself (no copy for what needs none).
    expect(copy.nested.plain).toBe(request.nested.plain);
  });

  it('keeps keys such as __proto__ and constructor as own data, never as the prototype', () => {
    const source = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}') as Record<string, unknown>;
    const copy = unshared(source) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: true });
    expect(copy.constructor).toBe(1);
  });

  it('reads each value once, so a getter cannot show the check one value and the host another', () => {
    let reads = 0;
    const tricky = {
      get body() {
        reads++;
        return reads === 1 ? new Uint8Array([1]) : sharedBytes([2]);
      },
    };
    const copy = unshared(tricky) as { body: Uint8Array };
    expect(reads).toBe(1);
    expect(Object.getOwnPropertyDescriptor(copy, 'body')).toMatchObject({ value: new Uint8Array([1]), writable: true });
    expect(holdsShared(copy)).toBe(false);
  });

  it('turns a proxy of a shared view into plain data, and refuses a value nested past its depth (a cycle)', () => {
    expect(holdsShared(unshared(new Proxy(sharedBytes([1, 2]), {})))).toBe(false);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => unshared(cycle)).toThrow(TypeError);
    expect(() => unshared([[[[[[[[1]]]]]]]])).not.toThrow();
  });
});
