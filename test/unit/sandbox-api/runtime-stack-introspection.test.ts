// Guests that use V8 stack introspection (Error.prepareStackTrace call sites, Function#caller)
// while runtime code is on the stack must get nothing of the runtime: it runs in strict mode.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness, envelope } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

describe('stack introspection', () => {
  it('would see a sloppy-mode function on the stack (control)', async () => {
    await harness.evaluate(
      `globalThis.control = []; Error.prepareStackTrace = (e, sites) => { for (const s of sites) if ` +
        `(s.getFunction() !== undefined) control.push(s.getFileName()); return ''; }; undefined`,
    );
    await harness.context.eval(`(function sloppy(cb) { cb(); })(() => new Error('x').stack)`, {
      filename: 'sandbox-runtime-control.js',
    });
    expect(await harness.evaluate('control.length')).toBeGreaterThan(0);
  });

  it('yields no runtime functions or receivers through call sites', async () => {
    await harness.evaluate(`
      globalThis.found = [];
      Error.prepareStackTrace = (error, sites) => {
        for (const site of sites) {
          const fn = site.getFunction();
          const self = site.getThis();
          if (fn !== undefined && !String(site.getFileName()).startsWith('guest'))
            found.push('function ' + (fn.name || '?') + ' from ' + site.getFileName());
          if (self !== undefined && self !== globalThis && !String(site.getFileName()).startsWith('guest'))
            found.push('receiver from ' + site.getFileName());
        }
        return 'stack';
      };
      const probe = () => { new Error('probe').stack; };
      setTimeout(function timerCallback() { probe(); globalThis.timerRan = true; throw new Error('in timer'); }, 1);
      queueMicrotask(() => probe());
      new Headers({ get a() { probe(); return '1'; } });
      new URLSearchParams([{ [Symbol.iterator]: function* () { probe(); yield 'a'; yield 'b'; } }]);
      console.log({ toString() { probe(); return 'x'; } }, '%s', { toString() { probe(); return 'y'; } });
      undefined`);
    // Until the timer callback has run (and been reported), however slow the machine.
    for (
      const started = Date.now();
      !(await harness.evaluate<boolean>('globalThis.timerRan === true')) ||
      !harness.logs.some((line) => line.text.includes('in timer'));
    ) {
      if (Date.now() - started > 30_000) throw new Error('the timer callback never ran');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await harness.loadSource(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({
        async fetch() { new Error('in handler').stack; throw new Error('boom'); } });`);
    await harness.dispatch(
      envelope({ type: 'fetch', request: { method: 'GET', url: 'https://a.example/', headers: [] } }),
    );
    const found = JSON.parse(await harness.evaluate<string>('JSON.stringify(found)'));
    expect(found.filter((entry: string) => entry.includes('sandbox-runtime'))).toEqual([]);
  });

  it('yields no runtime function through Function#caller', async () => {
    const result = await harness.evaluate<string>(`
      globalThis.callers = [];
      function sloppyCallback() {
        callers.push(typeof sloppyCallback.caller === 'function'
          ? sloppyCallback.caller.name || 'anonymous' : String(sloppyCallback.caller)); }
      setTimeout(sloppyCallback, 1);
      new URLSearchParams('a=1').forEach(sloppyCallback);
      new Headers({ a: '1' }).forEach(sloppyCallback);
      new Promise((resolve) => setTimeout(resolve, 20)).then(() => JSON.stringify(callers))`);
    expect(JSON.parse(result)).toEqual(['null', 'null', 'null']);
  });
});
