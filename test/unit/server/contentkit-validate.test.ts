import { describe, expect, it } from 'vitest';
import { ELEMENT_TYPES, ELEMENTS } from '../../../host/contentkit/schema.ts';
import { validateContentKit } from '../../../host/contentkit/validate.ts';

const VALID_TREE = {
  type: 'block',
  children: [
    { type: 'markdown', content: '# Title' },
    { type: 'text', style: 'bold', children: ['Count: ', { type: 'link', target: { url: 'https://x.test' }, children: ['here'] }] },
    { type: 'hstack', align: 'center', children: [{ type: 'button', label: 'Go', onPress: { action: 'go', id: 3 }, style: 'primary' }, { type: 'divider' }] },
    { type: 'vstack', children: [{ type: 'box', children: 'alone' }, { type: 'hint', children: ['a hint'] }] },
    {
      type: 'card',
      title: 'Card',
      hint: 'sub',
      icon: 'star',
      onPress: { action: 'open' },
      buttons: [{ type: 'button', label: 'X', onPress: { action: 'x' } }],
      children: [{ type: 'image', source: { url: 'https://x.test/a.png' }, aspectRatio: 1.5 }],
    },
    { type: 'input', label: 'Name', hint: 'who', element: { type: 'textinput', state: 'name', placeholder: 'Jane', initialValue: '', multiline: false } },
    { type: 'input', label: 'Pick', element: { type: 'select', state: 'pick', options: [{ id: 'a', label: 'A' }], multiple: true, placeholder: '…' } },
    { type: 'input', label: 'Dyn', element: { type: 'select', state: 'dyn', options: { url: '/channels' } } },
    { type: 'input', label: 'On', element: { type: 'switch', state: 'on', initialValue: true } },
    { type: 'input', label: 'Ok', element: { type: 'checkbox', state: 'ok', value: 'yes', initialValue: false } },
    { type: 'codeblock', content: 'let a = 1;', syntax: 'javascript', lineNumbers: true },
    { type: 'modal', title: 'M', size: 'xlarge', children: [{ type: 'configuration', children: [] }] },
  ],
};

// The smallest valid instance of each element, from which each required prop is removed in turn.
const MINIMAL: Record<string, Record<string, unknown>> = {
  button: { type: 'button', label: 'L', onPress: { action: 'a' } },
  markdown: { type: 'markdown', content: 'c' },
  input: { type: 'input', label: 'L', element: { type: 'textinput', state: 's' } },
  textinput: { type: 'textinput', state: 's' },
  select: { type: 'select', state: 's', options: [] },
  switch: { type: 'switch', state: 's' },
  checkbox: { type: 'checkbox', state: 's' },
  link: { type: 'link', target: { url: 'u' } },
  image: { type: 'image', source: { url: 'u' } },
  codeblock: { type: 'codeblock', content: 'c' },
};

describe('validateContentKit', () => {
  it('accepts a tree using every element', () => {
    expect(validateContentKit(VALID_TREE)).toEqual({ valid: true });
    const used = new Set(JSON.stringify(VALID_TREE).match(/"type":"[a-z]+"/g)!.map((m) => m.slice(8, -1)));
    expect([...used].sort()).toEqual([...ELEMENT_TYPES].sort());
  });

  it('reports each missing required prop with its pointer', () => {
    for (const [type, spec] of Object.entries(ELEMENTS)) {
      for (const prop of spec.required ?? []) {
        const element = { ...MINIMAL[type] };
        expect(validateContentKit(element), `${type} minimal`).toEqual({ valid: true });
        delete element[prop];
        const result = validateContentKit({ type: 'block', children: [element] });
        expect(result, `${type}.${prop}`).toEqual({ valid: false, errors: [{ pointer: `/children/0/${prop}`, message: `is required on <${type}>` }] });
      }
    }
  });

  it('reports an unknown element type', () => {
    expect(validateContentKit({ type: 'block', children: [{ type: 'buton', label: 'x' }] })).toEqual({
      valid: false,
      errors: [{ pointer: '/children/0/type', message: 'unknown element type "buton"' }],
    });
  });

  it('reports a prop of the wrong type and a misspelt prop', () => {
    const result = validateContentKit({ type: 'vstack', children: [{ type: 'button', label: 3, lable: 'x', onPress: { action: 'a' } }] });
    expect(result).toEqual({
      valid: false,
      errors: expect.arrayContaining([
        { pointer: '/children/0/label', message: 'must be string' },
        { pointer: '/children/0/lable', message: 'is not a prop of <button>' },
      ]),
    });
  });

  it('reports onPress without an action and an enum outside its values', () => {
    const result = validateContentKit({ type: 'button', label: 'L', onPress: {}, style: 'loud' });
    expect(result).toEqual({
      valid: false,
      errors: [
        { pointer: '/onPress/action', message: 'is required' },
        { pointer: '/style', message: 'must be one of: primary, secondary, danger' },
      ],
    });
  });

  it('refuses children that are neither strings nor elements, and non-elements', () => {
    expect(validateContentKit({ type: 'block', children: [42] })).toEqual({
      valid: false,
      errors: [{ pointer: '/children/0', message: 'must be an element (an object with a "type")' }],
    });
    expect(validateContentKit(null)).toMatchObject({ valid: false });
    expect(validateContentKit({})).toEqual({ valid: false, errors: [{ pointer: '/type', message: 'is required' }] });
  });

  it('never throws on a pathologically deep tree', () => {
    let element: Record<string, unknown> = { type: 'divider' };
    for (let i = 0; i < 20_000; i++) element = { type: 'block', children: [element] };
    expect(validateContentKit(element).valid).toBe(false);
  });
});
