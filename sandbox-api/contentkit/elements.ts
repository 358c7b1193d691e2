// ContentKit element types: what a component's render() returns (plain JSON objects). The tags and
// props are GitBook's (the ContentKit schemas of @gitbook/api's spec/openapi.json), which is what
// the host validates render output against. Types only: nothing here exists at run time.

/** The icons ContentKit buttons, cards, options and block controls may show. */
export type ContentKitIcon =
  | 'close'
  | 'edit'
  | 'github'
  | 'gitlab'
  | 'maximize'
  | 'email'
  | 'settings'
  | 'search'
  | 'delete'
  | 'star'
  | 'warning'
  | 'link'
  | 'link-external'
  | 'eye'
  | 'eye-off'
  | 'lock'
  | 'check'
  | 'check-circle';

/** JSON values a ContentKit `props` object (GitBook's PlainObject) may hold: no null. */
export type PlainValue = string | number | boolean | PlainObject | (string | number | boolean | PlainObject)[];
export interface PlainObject {
  [key: string]: PlainValue;
}

/**
 * What an interaction sends to the component's `action()`: a custom `{ action: 'name', … }`, or one
 * of the built-in actions the platform performs itself.
 */
export type ContentKitAction =
  | { action: string; [field: string]: unknown }
  | { action: '@ui.modal.open'; componentId: string; props: PlainObject }
  | { action: '@ui.modal.close'; returnValue: PlainObject }
  | { action: '@ui.url.open'; url: string }
  | { action: '@link.unfurl'; url: string }
  | { action: '@editor.node.updateProps'; props: PlainObject };

/** `{ $state: key }`: the platform substitutes the component's current `state[key]` client-side. */
export interface ContentKitDynamicBinding {
  $state: string;
}

export interface ContentKitConfirm {
  title: string;
  text: string;
  confirm: string;
  style?: 'primary' | 'danger';
}

/** A URL as parts; query values may be bound to state. */
export interface ContentKitURL {
  host: string;
  pathname: string;
  query?: Record<string, string | ContentKitDynamicBinding>;
}

export interface ContentKitSelectOption {
  id: string;
  label: string;
  icon?: ContentKitIcon | ImageElement;
}

export interface ContentKitBlockControl {
  label: string;
  onPress: ContentKitAction;
  icon?: ContentKitIcon;
  confirm?: ContentKitConfirm;
}

type ButtonElement = { type: 'button' } & ContentKitElementProps['button'];
type ImageElement = { type: 'image' } & ContentKitElementProps['image'];
type StepElement = { type: 'step' } & ContentKitElementProps['step'];
type InlineElement = Extract<ContentKitElement, { type: 'text' | 'image' | 'link' }>;
type InputChild = Extract<
  ContentKitElement,
  { type: 'textinput' | 'select' | 'switch' | 'radio' | 'checkbox' | 'button' | 'codeblock' }
>;

/** Props of each element, by tag (without `type`; `children` as the element holds them). */
export interface ContentKitElementProps {
  block: { children: ContentKitChild[]; controls?: (ContentKitBlockControl | ContentKitBlockControl[])[] };
  modal: {
    children: ContentKitChild[];
    title?: string;
    subtitle?: InlineElement[];
    size?: 'medium' | 'xlarge' | 'fullscreen';
    returnValue?: Record<string, unknown>;
    submit?: ButtonElement;
  };
  configuration: { children: ContentKitChild[] };
  button: {
    onPress: ContentKitAction;
    label?: string;
    style?: 'primary' | 'secondary' | 'danger';
    icon?: ContentKitIcon;
    trailingIcon?: ContentKitIcon;
    tooltip?: string;
    confirm?: ContentKitConfirm;
    disabled?: boolean;
  };
  textinput: {
    state: string;
    initialValue?: string;
    placeholder?: string;
    multiline?: boolean;
    inputType?: 'text' | 'password' | 'email';
    disabled?: boolean;
  };
  hstack: { children: ContentKitChild[]; align?: 'start' | 'center' | 'end' };
  vstack: { children: ContentKitChild[]; align?: 'start' | 'center' | 'end' };
  box: { children: ContentKitChild[]; grow?: number };
  divider: { size?: 'small' | 'medium' | 'large' };
  webframe: {
    source: { url: string };
    aspectRatio?: number;
    buttons?: ButtonElement[];
    data?: Record<string, string | ContentKitDynamicBinding>;
  };
  codeblock: {
    content: string | ContentKitDynamicBinding;
    syntax?: string;
    lineNumbers?: boolean | number;
    buttons?: ButtonElement[];
    /** State key the edited code is kept under when the block is editable. */
    state?: string;
    onContentChange?: ContentKitAction;
    header?: ContentKitChild[];
    footer?: ContentKitChild[];
  };
  markdown: { content: string | ContentKitDynamicBinding };
  text: { children: string | (string | ContentKitElement)[]; style?: 'bold' | 'italic' | 'code' | 'strikethrough' };
  link: { target: { url: string | ContentKitURL }; children: string | string[] };
  image: { source: { url: string }; aspectRatio: number };
  card: {
    title?: string;
    hint?: string | InlineElement[];
    icon?: ContentKitIcon | ImageElement;
    onPress?: ContentKitAction;
    children?: ContentKitChild[];
    buttons?: ButtonElement[];
  };
  select: {
    state: string;
    options: { source: 'openapi' } | ContentKitSelectOption[] | { url: string | ContentKitURL };
    initialValue?: string | string[];
    onValueChange?: ContentKitAction;
    placeholder?: string;
    multiple?: boolean;
    acceptInput?: boolean;
    disabled?: boolean;
  };
  switch: {
    state: string;
    initialValue?: boolean;
    onValueChange?: ContentKitAction;
    confirm?: ContentKitConfirm;
    disabled?: boolean;
  };
  radio: { state: string; value: string | number; confirm?: ContentKitConfirm; disabled?: boolean };
  checkbox: { state: string; value: string | number; confirm?: ContentKitConfirm };
  input: { label: string; element: InputChild; hint?: string | InlineElement };
  hint: { children: ContentKitChild[] };
  stepper: {
    activeStep: string;
    onStepChange: ContentKitAction;
    onComplete: ContentKitAction;
    children: StepElement[];
  };
  step: { id: string; children: ContentKitChild[]; title?: string; next?: boolean };
}

export type ContentKitTag = keyof ContentKitElementProps;

export type ContentKitElement = {
  [Tag in ContentKitTag]: ContentKitElementProps[Tag] & { type: Tag };
}[ContentKitTag];

/** A child as the element holds it (text only inside <text>, <link> and the like). */
export type ContentKitChild = ContentKitElement | string;

/** Anything JSX accepts as children before flattening (numbers become text; false, null and undefined vanish). */
export type ContentKitNode = ContentKitChild | number | boolean | null | undefined | ContentKitNode[];

/** The props JSX accepts for an intrinsic tag: children as JSX writes them. */
export type ContentKitIntrinsicProps = {
  [Tag in ContentKitTag]: Omit<ContentKitElementProps[Tag], 'children'> &
    ('children' extends keyof ContentKitElementProps[Tag] ? { children?: ContentKitNode } : object) & {
      key?: string | number;
    };
};
