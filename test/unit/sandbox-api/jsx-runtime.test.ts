// The ContentKit JSX runtime: intrinsic tags become plain objects, components are called, children
// are flattened; and a .tsx integration compiles through esbuild's automatic JSX.
import { describe, expect, it } from 'vitest';
import { Fragment, jsx, jsxs } from '../../../sandbox-api/jsx-runtime.ts';
import { jsxDEV } from '../../../sandbox-api/jsx-dev-runtime.ts';
import { bundleIntegration } from './harness.ts';
import { PROVIDED_MODULES } from '../../../sandbox-api/runtime/provided.ts';

describe('jsx runtime', () => {
  it('turns intrinsic tags into ContentKit objects with flattened children', () => {
    const element = jsxs('block', {
      title: 'T',
      children: [
        'text',
        3,
        null,
        false,
        true,
        undefined,
        [jsx('divider', {}), [jsx('markdown', { content: '**x**' })]],
      ],
    });
    expect(element).toEqual({
      type: 'block',
      title: 'T',
      children: ['text', '3', { type: 'divider' }, { type: 'markdown', content: '**x**' }],
    });
  });

  it('omits children when none were given, and keeps the tag as type', () => {
    expect(jsx('button', { label: 'Go', onPress: { action: 'go' }, type: 'ignored' } as never)).toEqual({
      type: 'button',
      label: 'Go',
      onPress: { action: 'go' },
    });
  });

  it('calls function components with their props and flattens fragments into the parent', () => {
    const Greeting = (props: Record<string, unknown>) => jsx('text', { children: ['Hello ', props.name as string] });
    const element = jsx('vstack', {
      children: [jsx(Greeting, { name: 'Ada' }), jsx(Fragment, { children: [jsx('divider', {}), 'tail'] })],
    });
    expect(element).toEqual({
      type: 'vstack',
      children: [{ type: 'text', children: ['Hello ', 'Ada'] }, { type: 'divider' }, 'tail'],
    });
    expect(jsxDEV('hint', { children: 'dev' }, undefined)).toEqual({ type: 'hint', children: ['dev'] });
  });

  it('compiles a .tsx integration with jsxImportSource sandbox-api', async () => {
    const bundle = await bundleIntegration(
      `import { createIntegration } from 'sandbox-api';
       export const tree = <block><text>Hi {1 + 1}</text><>{['a', 'b']}</></block>;
       export default createIntegration({});`,
      'tsx',
    );
    const namespace = new Function(`return ${bundle}`)()(PROVIDED_MODULES) as { tree: unknown };
    expect(namespace.tree).toEqual({ type: 'block', children: [{ type: 'text', children: ['Hi ', '2'] }, 'a', 'b'] });
  });
});
