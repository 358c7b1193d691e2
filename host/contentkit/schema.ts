// The JSON Schema of ContentKit elements, generated from one table of element → props. Data only;
// it must never accept a prop the table does not list, so typos in component output are caught.

import type { SchemaObject } from 'ajv';

const ref = (definition: string): SchemaObject => ({ $ref: `#/definitions/${definition}` });
const string: SchemaObject = { type: 'string' };
const boolean: SchemaObject = { type: 'boolean' };
const oneOfStrings = (...values: string[]): SchemaObject => ({ type: 'string', enum: values });

// Shared prop schemas. `children` takes one node or an array of nodes, a node being a string or
// an element (the JSX runtime may hand over a lone child without its array).
const children = ref('children');
const action = ref('action');
const element = ref('element');

interface ElementSpec {
  props: Record<string, SchemaObject>;
  required?: string[];
}

/** The whole vocabulary. Add an element or a prop here and nowhere else. */
export const ELEMENTS: Record<string, ElementSpec> = {
  block: { props: { children } },
  button: {
    props: { label: string, onPress: action, style: oneOfStrings('primary', 'secondary', 'danger'), disabled: boolean },
    required: ['label', 'onPress'],
  },
  text: { props: { children, style: oneOfStrings('bold', 'italic', 'strikethrough', 'code') } },
  markdown: { props: { content: string }, required: ['content'] },
  vstack: { props: { children, align: oneOfStrings('start', 'center', 'end') } },
  hstack: { props: { children, align: oneOfStrings('start', 'center', 'end') } },
  box: { props: { children, grow: { type: 'number' } } },
  divider: { props: { size: oneOfStrings('small', 'medium', 'large') } },
  card: {
    props: { title: string, hint: string, icon: { anyOf: [string, element] }, onPress: action, buttons: { type: 'array', items: ref('el_button') }, children },
  },
  input: { props: { label: string, hint: string, element }, required: ['label', 'element'] },
  textinput: { props: { state: string, placeholder: string, initialValue: string, multiline: boolean }, required: ['state'] },
  select: {
    props: {
      state: string,
      options: ref('selectOptions'),
      placeholder: string,
      multiple: boolean,
      initialValue: { anyOf: [string, { type: 'array', items: string }] },
    },
    required: ['state', 'options'],
  },
  switch: { props: { state: string, initialValue: boolean }, required: ['state'] },
  checkbox: { props: { state: string, value: { type: ['string', 'number', 'boolean'] }, initialValue: boolean }, required: ['state'] },
  hint: { props: { children } },
  link: { props: { target: ref('url'), children }, required: ['target'] },
  image: { props: { source: ref('url'), aspectRatio: { type: 'number', exclusiveMinimum: 0 } }, required: ['source'] },
  codeblock: { props: { content: string, syntax: string, lineNumbers: boolean }, required: ['content'] },
  modal: { props: { title: string, children, size: oneOfStrings('medium', 'xlarge', 'fullscreen') } },
  configuration: { props: { children } },
};

export const ELEMENT_TYPES = Object.keys(ELEMENTS);

function elementDefinition(type: string, spec: ElementSpec): SchemaObject {
  return {
    type: 'object',
    properties: { type: { const: type }, ...spec.props },
    required: ['type', ...(spec.required ?? [])],
    additionalProperties: false,
  };
}

const perElement = Object.fromEntries(ELEMENT_TYPES.map((type) => [`el_${type}`, elementDefinition(type, ELEMENTS[type])]));

export const CONTENTKIT_SCHEMA: SchemaObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'contentkit://element',
  definitions: {
    ...perElement,
    // `type` first picks the element's own definition (if/then per type), so an element reports
    // the errors of its own props only, never a oneOf of every possible element.
    element: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: ELEMENT_TYPES } },
      allOf: ELEMENT_TYPES.map((type) => ({ if: { type: 'object', properties: { type: { const: type } }, required: ['type'] }, then: ref(`el_${type}`) })),
    },
    node: { if: { type: 'string' }, else: element },
    children: { if: { type: 'array' }, then: { type: 'array', items: ref('node') }, else: ref('node') },
    action: { type: 'object', required: ['action'], properties: { action: { type: 'string', minLength: 1 } } },
    url: { type: 'object', required: ['url'], properties: { url: { type: 'string', minLength: 1 } }, additionalProperties: false },
    selectOptions: {
      if: { type: 'array' },
      then: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'label'],
          properties: { id: string, label: string },
          additionalProperties: false,
        },
      },
      else: ref('url'),
    },
  },
  $ref: '#/definitions/element',
};
