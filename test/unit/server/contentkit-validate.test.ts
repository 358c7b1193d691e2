// ContentKit validation against GitBook's own schemas (@gitbook/api spec/openapi.json with the
// patches of host/contentkit/spec.ts): every element GitBook's JSX declares validates, each
// problem comes back once at its pointer, and depth and size are bounded before ajv runs.
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, MAX_VALUES, validateContentKit, validateRenderOutput } from '../../../host/contentkit/validate.ts';
import { loadGitBookSpec } from '../../../host/contentkit/spec.ts';

/** A block using every descendant element, in the shapes GitBook's integrations render. */
const EVERY_DESCENDANT = {
  type: 'block',
  controls: [{ label: 'Hide', onPress: { action: 'hide' }, icon: 'eye-off' }],
  children: [
    { type: 'markdown', content: { $state: 'md' } },
    {
      type: 'text',
      style: 'bold',
      children: ['Count: ', { type: 'link', target: { url: 'https://x.test' }, children: ['here'] }],
    },
    {
      type: 'hstack',
      align: 'center',
      children: [
        { type: 'button', label: 'Go', onPress: { action: 'go', id: 3 }, style: 'primary', icon: 'star', tooltip: 't' },
        { type: 'divider', size: 'medium' },
      ],
    },
    {
      type: 'vstack',
      children: [
        { type: 'box', grow: 1, children: [{ type: 'hint', children: [{ type: 'text', children: 'a hint' }] }] },
      ],
    },
    {
      type: 'card',
      title: 'Card',
      hint: 'sub',
      icon: { type: 'image', source: { url: 'https://x.test/i.png' }, aspectRatio: 1 },
      onPress: { action: '@ui.url.open', url: 'https://x.test' },
      buttons: [
        { type: 'button', label: 'X', onPress: { action: '@ui.modal.open', componentId: 'preview', props: { n: 1 } } },
      ],
      children: [{ type: 'image', source: { url: 'https://x.test/a.png' }, aspectRatio: 1.5 }],
    },
    {
      type: 'input',
      label: 'Name',
      hint: 'who',
      element: { type: 'textinput', state: 'name', placeholder: 'Jane', inputType: 'password' },
    },
    {
      type: 'input',
      label: 'Pick',
      element: {
        type: 'select',
        state: 'pick',
        options: [{ id: 'a', label: 'A' }],
        multiple: true,
        acceptInput: true,
        onValueChange: { action: 'pick' },
      },
    },
    {
      type: 'input',
      label: 'Remote',
      element: {
        type: 'select',
        state: 'dyn',
        options: { url: { host: 'h.test', pathname: '/opts', query: { q: { $state: 'q' } } } },
      },
    },
    {
      type: 'input',
      label: 'On',
      element: { type: 'switch', state: 'on', initialValue: true, onValueChange: { action: 'toggle' } },
    },
    { type: 'input', label: 'Ok', element: { type: 'checkbox', state: 'ok', value: 'yes' } },
    { type: 'input', label: 'One', element: { type: 'radio', state: 'one', value: 1 } },
    {
      type: 'codeblock',
      content: 'let a = 1;',
      syntax: 'javascript',
      lineNumbers: 10,
      state: 'code',
      onContentChange: { action: '@editor.node.updateProps', props: { content: { $state: 'code' } } },
      footer: [{ type: 'divider' }],
    },
    {
      type: 'webframe',
      source: { url: 'https://x.test/frame' },
      aspectRatio: 1.7,
      data: { content: { $state: 'code' }, fixed: 'x' },
      buttons: [{ type: 'button', onPress: { action: 'x' } }],
    },
  ],
};

const output = (element: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'element',
  element,
  state: {},
  props: {},
  ...extra,
});

describe("validateRenderOutput against GitBook's schemas", () => {
  it("accepts every element GitBook's JSX declares, in every root", () => {
    expect(
      validateRenderOutput(
        output(EVERY_DESCENDANT, {
          state: { md: '# Hi', code: 'x' },
          props: { n: 3, s: 'x', list: [1, 'a', true, { o: {} }], nested: { b: false } },
        }),
      ),
    ).toEqual({ valid: true });
    expect(
      validateRenderOutput(
        output({
          type: 'modal',
          title: 'M',
          size: 'xlarge',
          subtitle: [{ type: 'text', children: 's' }],
          returnValue: { a: 1 },
          submit: { type: 'button', label: 'OK', onPress: { action: '@ui.modal.close', returnValue: {} } },
          children: [{ type: 'divider' }],
        }),
      ),
    ).toEqual({ valid: true });
    const stepper = {
      type: 'stepper',
      activeStep: 'one',
      onStepChange: { action: 'step' },
      onComplete: { action: 'done' },
      children: [{ type: 'step', id: 'one', title: 'One', next: true, children: [{ type: 'markdown', content: 'x' }] }],
    };
    expect(validateRenderOutput(output({ type: 'configuration', children: [stepper] }))).toEqual({ valid: true });
    expect(validateRenderOutput({ type: 'complete', returnValue: { done: true } })).toEqual({ valid: true });
    const declared = [
      'configuration',
      'block',
      'button',
      'box',
      'vstack',
      'hstack',
      'divider',
      'text',
      'hint',
      'link',
      'codeblock',
      'markdown',
      'webframe',
      'input',
      'textinput',
      'card',
      'image',
      'select',
      'switch',
      'radio',
      'modal',
      'checkbox',
      'stepper',
      'step',
    ];
    const used = new Set(
      JSON.stringify([EVERY_DESCENDANT, stepper, { type: 'modal' }, { type: 'configuration' }])
        .match(/"type":"[a-z]+"/g)!
        .map((m) => m.slice(8, -1)),
    );
    expect(declared.filter((tag) => !used.has(tag))).toEqual([]);
  });

  it('reports each missing required prop of each element with its pointer', () => {
    const schemas = loadGitBookSpec().components.schemas as Record<
      string,
      { properties?: { type?: { enum?: string[] } }; required?: string[] }
    >;
    const MINIMAL: Record<string, Record<string, unknown>> = {
      button: { type: 'button', onPress: { action: 'a' } },
      textinput: { type: 'textinput', state: 's' },
      hstack: { type: 'hstack', children: [] },
      vstack: { type: 'vstack', children: [] },
      box: { type: 'box', children: [] },
      webframe: { type: 'webframe', source: { url: 'u' } },
      codeblock: { type: 'codeblock', content: 'c' },
      markdown: { type: 'markdown', content: 'c' },
      text: { type: 'text', children: 'c' },
      link: { type: 'link', target: { url: 'u' }, children: 'c' },
      image: { type: 'image', source: { url: 'https://x.test/i.png' }, aspectRatio: 1 },
      hint: { type: 'hint', children: [] },
    };
    let checked = 0;
    for (const [type, minimal] of Object.entries(MINIMAL)) {
      const schema = Object.entries(schemas).find(
        ([name, candidate]) => name.startsWith('ContentKit') && candidate.properties?.type?.enum?.[0] === type,
      )![1];
      expect(validateRenderOutput(output({ type: 'block', children: [minimal] })), `${type} minimal`).toEqual({
        valid: true,
      });
      for (const prop of schema.required!.filter((name) => name !== 'type')) {
        const element = { ...minimal };
        delete element[prop];
        expect(validateRenderOutput(output({ type: 'block', children: [element] })), `${type}.${prop}`).toEqual({
          valid: false,
          errors: [{ pointer: `/element/children/0/${prop}`, message: `is required on <${type}>` }],
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  it.each([
    [
      'an unknown element type',
      { type: 'buton', label: 'x' },
      [{ pointer: '/element/children/0/type', message: 'unknown element type "buton"' }],
    ],
    [
      'an element where it is not allowed',
      { type: 'modal', children: [] },
      [
        {
          pointer: '/element/children/0/type',
          message: expect.stringMatching(/^<modal> is not allowed here \(expected button, textinput, .*\)$/),
        },
      ],
    ],
    [
      'a prop of the wrong type',
      { type: 'button', label: 3, onPress: { action: 'a' } },
      [{ pointer: '/element/children/0/label', message: 'must be a string' }],
    ],
    [
      'a value outside an enum',
      { type: 'divider', size: 'huge' },
      [{ pointer: '/element/children/0/size', message: 'must be one of: small, medium, large' }],
    ],
    [
      'a value that fits none of its forms',
      { type: 'codeblock', content: 3 },
      [{ pointer: '/element/children/0/content', message: 'must be an object or a string' }],
    ],
    [
      'a non-element child',
      'loose text',
      [{ pointer: '/element/children/0', message: 'must be an element (an object with a string "type")' }],
    ],
    [
      "a `false` child (GitBook's JSX keeps them)",
      false,
      [{ pointer: '/element/children/0', message: 'must be an element (an object with a string "type")' }],
    ],
    [
      'an element without a type',
      { label: 'x' },
      [{ pointer: '/element/children/0', message: 'must be an element (an object with a string "type")' }],
    ],
    [
      'an image URL that is not a URI',
      { type: 'image', source: { url: 'not a uri' }, aspectRatio: 1 },
      [{ pointer: '/element/children/0/source/url', message: 'must match format "uri"' }],
    ],
  ])('reports %s once, at its pointer', (_what, child, errors) => {
    expect(validateRenderOutput(output({ type: 'block', children: [child] }))).toEqual({ valid: false, errors });
  });

  it('judges a member of a union by its own type: its own problems, or that it does not belong there', () => {
    const nested = { type: 'vstack', children: [{ type: 'text', children: [{ type: 'link', target: { url: 'u' } }] }] };
    expect(validateRenderOutput(output({ type: 'block', children: [nested] }))).toEqual({
      valid: false,
      errors: [{ pointer: '/element/children/0/children/0/children/0/children', message: 'is required on <link>' }],
    });
    const input = (element: unknown) =>
      validateRenderOutput(output({ type: 'block', children: [{ type: 'input', label: 'l', element }] }));
    expect(input({ type: 'textinput', state: 's', inputType: 'secret' })).toEqual({
      valid: false,
      errors: [{ pointer: '/element/children/0/element/inputType', message: 'must be one of: text, password, email' }],
    });
    expect(input({ type: 'webframe', source: { url: 'u' } })).toEqual({
      valid: false,
      errors: [
        {
          pointer: '/element/children/0/element/type',
          message:
            '<webframe> is not allowed here (expected textinput, select, switch, radio, checkbox, button, codeblock)',
        },
      ],
    });
  });

  it(
    'accepts props GitBook does not declare (its schemas allow them) and refuses a root that is not block, modal or ' +
      'configuration',
    () => {
      expect(validateRenderOutput(output({ type: 'block', children: [{ type: 'divider', lable: 'typo' }] }))).toEqual({
        valid: true,
      });
      expect(validateRenderOutput(output({ type: 'text', children: 'x' }))).toEqual({
        valid: false,
        errors: [
          { pointer: '/element/type', message: '<text> is not allowed here (expected block, modal, configuration)' },
        ],
      });
    },
  );

  it("checks props as GitBook's PlainObject (patched with its missing type) and state as an object", () => {
    expect(validateRenderOutput(output({ type: 'block', children: [] }, { props: { n: 3 } }))).toEqual({ valid: true });
    expect(validateRenderOutput(output({ type: 'block', children: [] }, { props: { a: null } }))).toEqual({
      valid: false,
      errors: [{ pointer: '/props/a', message: 'must be an object, a string, a boolean, a number or an array' }],
    });
    expect(validateRenderOutput(output({ type: 'block', children: [] }, { state: [] }))).toEqual({
      valid: false,
      errors: [{ pointer: '/state', message: 'must be an object' }],
    });
    expect(validateRenderOutput({ type: 'complete', returnValue: 'done' })).toEqual({
      valid: false,
      errors: [{ pointer: '/returnValue', message: 'must be an object' }],
    });
  });

  it('bounds depth and size before validating, answering with an error, not a stack overflow', () => {
    let deep: unknown = { type: 'divider' };
    for (let i = 0; i < 20_000; i++) deep = { type: 'box', children: [deep] };
    const tooDeep = validateContentKit({ type: 'block', children: [deep] });
    expect(tooDeep.valid).toBe(false);
    expect(!tooDeep.valid && tooDeep.errors).toEqual([
      {
        pointer: expect.stringMatching(new RegExp(`^(/children/0){${MAX_DEPTH / 2}}$`)),
        message: `is nested deeper than ${MAX_DEPTH} levels`,
      },
    ]);
    const wide = { type: 'block', children: Array.from({ length: MAX_VALUES }, () => ({ type: 'divider' })) };
    expect(validateContentKit(wide)).toEqual({
      valid: false,
      errors: [{ pointer: '', message: `has more than ${MAX_VALUES} values` }],
    });
  });

  it('counts every value towards the size bound, numbers and other scalars included', () => {
    // 8 values around the array: the output, its type, the element, its type, children, state, props and the array.
    const withNumbers = (count: number) =>
      output({ type: 'block', children: [] }, { props: { n: new Array(count).fill(7) } });
    expect(validateRenderOutput(withNumbers(MAX_VALUES - 8))).toEqual({ valid: true });
    expect(validateRenderOutput(withNumbers(MAX_VALUES - 7))).toEqual({
      valid: false,
      errors: [{ pointer: '', message: `has more than ${MAX_VALUES} values` }],
    });
    const strings = output({ type: 'block', children: [] }, { props: { s: new Array(MAX_VALUES).fill('x') } });
    expect(validateRenderOutput(strings)).toEqual({
      valid: false,
      errors: [{ pointer: '', message: `has more than ${MAX_VALUES} values` }],
    });
  });

  it('refuses a million-element array of numbers before validating it', () => {
    const million = output({ type: 'block', children: [] }, { props: { n: new Array(1_000_000).fill(0) } });
    expect(validateRenderOutput(million)).toEqual({
      valid: false,
      errors: [{ pointer: '', message: `has more than ${MAX_VALUES} values` }],
    });
    const asElementProperty = validateContentKit({
      type: 'block',
      children: [],
      extra: new Array(1_000_000).fill(1.5),
    });
    expect(asElementProperty).toEqual({
      valid: false,
      errors: [{ pointer: '', message: `has more than ${MAX_VALUES} values` }],
    });
  });

  it('lists at most 50 problems, in pointer order', () => {
    const result = validateContentKit({
      type: 'block',
      children: Array.from({ length: 80 }, () => ({ type: 'nope' })),
    });
    expect(!result.valid && result.errors.length).toBe(50);
  });
});
