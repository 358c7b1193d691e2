// The runtime's lazily loaded modules (modules.ts): loaded on a guest's first use of one of their
// globals, as plain data properties afterwards, untouchable by globals a guest replaced before, and
// without running anything of the guest's out of order while they load.
import { afterEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.dispose());

describe.each(['snapshot', 'install'] as const)('runtime modules (%s realm)', (runtime) => {
  it('stand as accessors until first use, then as plain, frozen globals', async () => {
    harness = await Harness.create({ runtime });
    expect(await harness.evaluate(`typeof Object.getOwnPropertyDescriptor(globalThis, 'ReadableStream').get`)).toBe(
      'function',
    );
    expect(
      await harness.evaluate(`(() => {
        const Stream = ReadableStream;
        const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'ReadableStream');
        return [descriptor.value === Stream, descriptor.writable, descriptor.enumerable, descriptor.configurable,
          Object.isFrozen(Stream.prototype), Stream.name];
      })()`),
    ).toEqual([true, true, false, true, true, 'ReadableStream']);
  });

  it('keep working for a guest that replaced the intrinsics before loading them', async () => {
    harness = await Harness.create({ runtime });
    const result = await harness.evaluate(`(async () => {
      globalThis.Promise = null; globalThis.Object = null; globalThis.TypeError = null; globalThis.Symbol = null;
      const stream = new ReadableStream({ start(c) { c.enqueue('a'); c.close(); } }).pipeThrough(new TransformStream({
        transform(chunk, c) { c.enqueue(chunk + '!'); } }));
      return (await stream.getReader().read()).value;
    })()`);
    expect(result).toBe('a!');
  });

  it('load without running the guest’s queued microtasks in the middle of its synchronous code', async () => {
    harness = await Harness.create({ runtime });
    const order = await harness.evaluate(`(async () => {
      const order = [];
      Promise.resolve().then(() => order.push('microtask'));
      void ReadableStream;
      order.push('sync');
      await null;
      return order;
    })()`);
    expect(order).toEqual(['sync', 'microtask']);
  });

  it('let a guest replace a lazy global before its first use', async () => {
    harness = await Harness.create({ runtime });
    expect(await harness.evaluate(`(() => { globalThis.TransformStream = 42; return TransformStream; })()`)).toBe(42);
  });
});
