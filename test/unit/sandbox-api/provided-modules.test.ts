// sandbox-api provided by the runtime (sandbox-api/runtime/provided.ts) instead of a copy in each
// bundle: what the bundle still carries, that the provided modules are sandbox-api's real exports,
// and that createIntegration(), components, JSX (production and development) and ExposableError
// work through them in a realm made from the snapshot and in one the runtime script installed.
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDED_MODULES } from '../../../sandbox-api/runtime/provided.ts';
import { Harness, bundleIntegration, envelope, json } from './harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.dispose());

const fetchEvent = () =>
  envelope({ type: 'fetch', request: { method: 'GET', url: 'https://x.example/', headers: [] } }, null, {
    installation: { id: 'inst_1' },
  });

describe('the provided modules', () => {
  it('are exactly the public exports of sandbox-api and its JSX runtimes', async () => {
    const modules: [string, string][] = [
      ['sandbox-api', 'index.ts'],
      ['sandbox-api/jsx-runtime', 'jsx-runtime.ts'],
      ['sandbox-api/jsx-dev-runtime', 'jsx-dev-runtime.ts'],
    ];
    expect(Object.keys(PROVIDED_MODULES).sort()).toEqual(modules.map(([specifier]) => specifier).sort());
    for (const [specifier, file] of modules) {
      const real = (await import(`../../../sandbox-api/${file}`)) as Record<string, unknown>;
      expect(Object.keys(PROVIDED_MODULES[specifier]).sort()).toEqual(Object.keys(real).sort());
      for (const name of Object.keys(real)) expect(PROVIDED_MODULES[specifier][name]).toBe(real[name]);
      expect(Object.isFrozen(PROVIDED_MODULES[specifier])).toBe(true);
      expect(Object.getPrototypeOf(PROVIDED_MODULES[specifier])).toBe(null);
    }
  });

  it('leave no copy of sandbox-api in a bundle; a deep import is still bundled', async () => {
    const bundle = await bundleIntegration(`import { createIntegration, ExposableError } from 'sandbox-api';
      export default createIntegration({ async fetch() { throw new ExposableError('no'); } });`);
    expect(bundle).toContain('__ih_provided["sandbox-api"]');
    expect(bundle).not.toMatch(/function createIntegration\(|class ExposableError|function handleFetch\(/);
    expect(bundle.length).toBeLessThan(2_000);
    const receiver = await bundleIntegration(
      `import * as receiver from 'sandbox-api/webhook-receiver'; export const names = Object.keys(receiver);`,
    );
    expect(receiver).not.toContain('__ih_provided["sandbox-api/webhook-receiver"]');
    expect(receiver).toMatch(/function verifySignature\(/);
  });
});

for (const runtime of ['snapshot', 'install'] as const) {
  describe(
    `createIntegration through the provided modules (realm ` +
      `from ${runtime === 'snapshot' ? 'the snapshot' : 'the runtime script'})`,
    () => {
      it('answers fetch, renders a component with JSX, and maps an ExposableError to its status', async () => {
        harness = await Harness.create({ runtime });
        await harness.loadSource(
          `import { createComponent, createIntegration, ExposableError } from 'sandbox-api';
         const card = createComponent({ componentId: 'card', async render(element) {
           return <block><text>Hi {element.props.name as string}</text><>{['a']}</></block>; } });
         export default createIntegration({
           components: [card],
           async fetch(request) {
             if (request.url.endsWith('/no')) throw new ExposableError('not here', 404);
             return Response.json({ ok: true });
           },
         });`,
          'tsx',
        );
        expect(json(await harness.dispatch(fetchEvent()))).toEqual({ ok: true });
        const missing = await harness.dispatch(
          envelope({ type: 'fetch', request: { method: 'GET', url: 'https://x.example/no', headers: [] } }, null, {}),
        );
        expect(missing.status).toBe(404);
        expect(json(missing)).toEqual({ error: 'not here' });
        const rendered = await harness.dispatch(
          envelope({ type: 'ui_render', componentId: 'card', props: { name: 'Ada' } }),
        );
        expect(json(rendered)).toMatchObject({
          type: 'element',
          element: { type: 'block', children: [{ type: 'text', children: ['Hi ', 'Ada'] }, 'a'] },
        });
      });

      it('runs development JSX (jsxDEV) from the provided jsx-dev-runtime', async () => {
        harness = await Harness.create({ runtime });
        await harness.loadSource(
          `import { createIntegration } from 'sandbox-api';
         export default createIntegration({ async fetch() { return Response.json(<hint>dev</hint>); } });`,
          'tsx',
          { mode: 'development' },
        );
        expect(json(await harness.dispatch(fetchEvent()))).toEqual({ type: 'hint', children: ['dev'] });
      });

      it('lets an integration subclass the frozen ExposableError and name its own errors', async () => {
        harness = await Harness.create({ runtime });
        await harness.loadSource(
          `import { createIntegration, ExposableError } from 'sandbox-api';
         class NotFound extends ExposableError {
           constructor(what: string) { super(what + ' not found', 404); this.name = 'NotFound'; }
         }
         export default createIntegration({ async fetch() { const error = new NotFound('page'); return Response.json({
           name: error.name, status: error.status, exposable: error instanceof ExposableError }); } });`,
        );
        expect(json(await harness.dispatch(fetchEvent()))).toEqual({ name: 'NotFound', status: 404, exposable: true });
      });

      it('recognizes an ExposableError of a bundled deep copy by its brand', async () => {
        harness = await Harness.create({ runtime });
        await harness.loadSource(
          `import { createIntegration } from 'sandbox-api';
         import { ExposableError as Copied } from 'sandbox-api/index';
         export default createIntegration({ async fetch() { throw new Copied('from the copy', 409); } });`,
        );
        const response = await harness.dispatch(fetchEvent());
        expect(response.status).toBe(409);
        expect(json(response)).toEqual({ error: 'from the copy' });
      });

      it('propagates a throwing top level as the start failing, not as a bad entry', async () => {
        harness = await Harness.create({ runtime });
        await expect(
          harness.loadSource(`import { createIntegration } from 'sandbox-api';
        throw new RangeError('not configured');
        export default createIntegration({});`),
        ).rejects.toThrow('not configured');
      });
    },
  );
}
