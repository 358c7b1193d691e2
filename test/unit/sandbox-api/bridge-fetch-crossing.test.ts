// How the async `fetch` primitive can cross into the isolate with isolated-vm 7.0.1: an async
// ivm.Callback cannot carry a host Promise back (it is not cloneable), a Reference applied with
// `result: { promise: true, copy: true }` from a tiny strict in-isolate adapter can.
import { describe, expect, it } from 'vitest';
import ivm from 'isolated-vm';

const hostFetch = async (request: { url: string }) => ({
  ok: true,
  value: { url: request.url, body: new Uint8Array([1, 2]) },
});

async function callFromGuest(
  fetchArgument: ivm.Callback | ivm.Copy<unknown> | unknown,
  isolate: ivm.Isolate,
  context: ivm.Context,
): Promise<string> {
  const probe = await (
    await isolate.compileScript(
      `"use strict"; (function (fetch) { return Promise.resolve().then(() => fetch({ url: 'https://a.example/' })).then(
      (result) => 'ok ' + result.value.url + ' ' + (result.value.body instanceof Uint8Array),
      (error) => 'rejected: ' + error.message); })`,
    )
  ).run(context, { reference: true });
  return (await probe.apply(undefined, [fetchArgument], { result: { promise: true, copy: true } })) as string;
}

describe('crossing the async fetch primitive', () => {
  it('fails as an async ivm.Callback (a host Promise cannot be cloned)', async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    try {
      const context = await isolate.createContext();
      expect(await callFromGuest(new ivm.Callback(hostFetch, { async: true }), isolate, context)).toMatch(
        /^rejected: .*could not be cloned/,
      );
    } finally {
      isolate.dispose();
    }
  });

  it('works as a Reference wrapped by a strict in-isolate adapter', async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    try {
      const context = await isolate.createContext();
      const adapter = await (
        await isolate.compileScript(
          '"use strict"; (function (ref) { return function fetch(request) { return ref.apply(undefined, ' +
            '[request], { arguments: { copy: true }, result: { promise: true, copy: true } }); }; })',
        )
      ).run(context, { reference: true });
      const fetchFn = (await adapter.apply(undefined, [new ivm.Reference(hostFetch)], {
        result: { reference: true },
      })) as ivm.Reference<unknown>;
      expect(await callFromGuest(fetchFn.derefInto(), isolate, context)).toBe('ok https://a.example/ true');
    } finally {
      isolate.dispose();
    }
  });
});
