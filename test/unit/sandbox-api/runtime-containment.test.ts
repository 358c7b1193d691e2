// What guest code can and cannot reach inside the isolate: no Node globals, no shared memory,
// no bridge function anywhere in the object graph, no host error ever rethrown.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import ivm from 'isolated-vm';
import { buildRuntimeScript } from '../../../sandbox-api/runtime/build.ts';
import { Harness, envelope, json } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

// Walks everything reachable from the given roots through own properties (values and accessor
// functions, getters not invoked) and prototypes; reports functions that look like bridges.
const WALK = `
  function walk(roots) {
    const seen = new Set();
    const queue = [...roots];
    const bridges = [];
    let visited = 0;
    while (queue.length > 0) {
      const value = queue.pop();
      if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) continue;
      seen.add(value);
      visited++;
      if (typeof value === 'function' && /^bridge_/.test(value.name)) bridges.push(value.name);
      if (typeof value.applySync === 'function' || typeof value.derefInto === 'function') bridges.push('ivm-reference');
      queue.push(Object.getPrototypeOf(value));
      for (const key of Reflect.ownKeys(value)) {
        const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
        if (descriptor === undefined) continue;
        if ('value' in descriptor) queue.push(descriptor.value);
        else queue.push(descriptor.get, descriptor.set);
      }
    }
    return { bridges, visited };
  }
`;

describe('globals', () => {
  it('has no process, require, Atomics or WebAssembly (SharedArrayBuffer stays: it never crosses)', async () => {
    const types = await harness.evaluate(
      `JSON.stringify(['process', 'require', 'module', 'Atomics', 'WebAssembly', 'global', ` +
        `'__ih_runtime'].map((name) => typeof globalThis[name]))`,
    );
    expect(JSON.parse(types as string)).toEqual(Array(7).fill('undefined'));
  });

  it('defines the web platform globals as writable, configurable and non-enumerable', async () => {
    const names = [
      'fetch',
      'Request',
      'Response',
      'Headers',
      'URL',
      'URLSearchParams',
      'TextEncoder',
      'TextDecoder',
      'atob',
      'btoa',
      'crypto',
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'queueMicrotask',
      'console',
      'DOMException',
    ];
    const result = await harness.evaluate<string>(`JSON.stringify(${JSON.stringify(names)}.map((name) => {
      const d = Object.getOwnPropertyDescriptor(globalThis, name);
      return d && d.writable && d.configurable && !d.enumerable && d.value !== undefined;
    }))`);
    expect(JSON.parse(result)).toEqual(names.map(() => true));
    expect(await harness.evaluate('Object.keys(globalThis).length')).toBe(0);
  });

  it('creates no global when the runtime script runs', async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    try {
      const context = await isolate.createContext();
      const before = await context.eval('Object.getOwnPropertyNames(globalThis).join()');
      const value = await (await isolate.compileScript(await buildRuntimeScript())).run(context, { reference: true });
      expect(value.typeof).toBe('function');
      expect(await context.eval('Object.getOwnPropertyNames(globalThis).join()')).toBe(before);
    } finally {
      isolate.dispose();
    }
  });
});

describe('bridge functions', () => {
  it('would be found by the graph walk if one were reachable (control)', async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    try {
      const context = await isolate.createContext();
      await context.global.set('holder', { nested: {} }, { copy: true });
      await context.evalClosure('holder.nested.fn = $0', [new ivm.Callback(function bridge_probe() {})]);
      const result = await context.eval(`${WALK}; JSON.stringify(walk([globalThis]))`);
      expect(JSON.parse(result as string).bridges).toEqual(['bridge_probe']);
    } finally {
      isolate.dispose();
    }
  });

  it('are unreachable from globalThis, the web classes, their instances and errors', async () => {
    const result = await harness.evaluate<string>(`(async () => {
      ${WALK}
      const response = await fetch('https://api.example/x', { method: 'POST', body: 'hi' });
      let fetchError;
      try { await fetch('not a url'); } catch (error) { fetchError = error; }
      let urlError;
      try { new URL('::'); } catch (error) { urlError = error; }
      const key = await crypto.subtle.importKey('raw', new Uint8Array([1, 2]), { name: 'HMAC', hash: 'SHA-256' }, false,
        ['sign']);
      const roots = [globalThis, response, response.headers, response.body, new Request('https://a.example/'),
        new URL('https://a.example/?q=1'),
        new URLSearchParams('a=1'), new TextDecoder(), new TextEncoder(), key, fetchError, urlError,
          new DOMException('x'), crypto.subtle];
      for (const name of Object.getOwnPropertyNames(globalThis)) roots.push(globalThis[name]);
      return JSON.stringify(walk(roots));
    })()`);
    const { bridges, visited } = JSON.parse(result);
    expect(visited).toBeGreaterThan(300);
    expect(bridges).toEqual([]);
  });

  it('are unreachable from the host object an integration receives', async () => {
    await harness.loadSource(`
      ${WALK}
      export default {
        [Symbol.for('sandbox-api.integration')]: async (envelope, host) => {
          let waitUntilResult;
          host.waitUntil(Promise.resolve());
          return new host.Response(JSON.stringify(walk([host, envelope])));
        },
      };`);
    const response = await harness.dispatch(envelope({ type: 'anything' }));
    expect(json(response)).toMatchObject({ bridges: [] });
  });

  it('are not exposed by a guest that patches Function.prototype.call/apply/bind', async () => {
    const result = await harness.evaluate<string>(`(async () => {
      const leaked = [];
      for (const method of ['call', 'apply', 'bind']) {
        const original = Function.prototype[method];
        Function.prototype[method] = function (...args) { if (/^bridge_/.test(this.name)) leaked.push(this.name);
          return original.apply(this, args); };
      }
      const original = Reflect.apply;
      Reflect.apply = (target, thisArg, args) => { if (/^bridge_/.test(target.name)) leaked.push(target.name);
        return original(target, thisArg, args); };
      console.log('hello %s', 'world');
      new URL('https://a.example/').search = '?x=1';
      await fetch('https://a.example/');
      await crypto.subtle.digest('SHA-256', new Uint8Array(1));
      crypto.randomUUID();
      new TextDecoder('latin1').decode(new Uint8Array([233]));
      setTimeout(() => {}, 1);
      return JSON.stringify(leaked);
    })()`);
    expect(JSON.parse(result)).toEqual([]);
  });
});

describe('host failures', () => {
  it('reach the guest only as fresh isolate errors without host details', async () => {
    harness.dispose();
    harness = await Harness.create({ throwingPrimitives: true });
    const result = await harness.evaluate<string>(`(async () => {
      const errors = [];
      const attempt = async (fn) => { try { await fn(); errors.push('no error'); } catch (error) { errors.push({
        name: error.name, message: String(error.message), stack: String(error.stack),
        isTypeError: error instanceof TypeError }); } };
      await attempt(() => new URL('https://a.example/'));
      await attempt(() => crypto.randomUUID());
      await attempt(() => crypto.subtle.digest('SHA-256', new Uint8Array(1)));
      await attempt(() => new TextDecoder('latin1').decode(new Uint8Array([0x41])));
      return JSON.stringify(errors);
    })()`);
    const errors = JSON.parse(result) as { name: string; message: string; stack: string }[];
    expect(errors).toHaveLength(4);
    expect(errors[0]).toMatchObject({ name: 'TypeError', isTypeError: true });
    for (const error of errors) {
      expect(error.message + error.stack).not.toMatch(/secret|\/srv\/host|harness/);
    }
  });

  it('turns a failed bridge fetch into TypeError("fetch failed: ...")', async () => {
    harness.dispose();
    harness = await Harness.create({
      fetch: () => ({ ok: false, code: 'egress_denied', message: 'destination 10.0.0.1 is not allowed' }),
    });
    const result = await harness.evaluate<string>(
      `fetch('http://10.0.0.1/').then(() => 'resolved', (error) => JSON.stringify([error instanceof TypeError, ` +
        `error.message]))`,
    );
    expect(JSON.parse(result)).toEqual([true, 'fetch failed: destination 10.0.0.1 is not allowed']);
  });

  it('turns a rejected host fetch into a generic fetch failure without the host error', async () => {
    harness.dispose();
    harness = await Harness.create({
      fetch: async () => {
        throw new Error('ECONNREFUSED at /srv/host/bridge/fetch.ts:12');
      },
    });
    const result = await harness.evaluate<string>(
      `fetch('https://a.example/').then(() => 'resolved', (error) => JSON.stringify([error instanceof TypeError, ` +
        `error.message, String(error.stack)]))`,
    );
    const [isTypeError, message, stack] = JSON.parse(result);
    expect(isTypeError).toBe(true);
    expect(message).toBe('fetch failed: the host could not complete the request');
    expect(stack).not.toContain('/srv/host');
  });
});
