// ContentKit element types: what a component's render() returns (plain JSON objects). Deliberately
// permissive beyond `type` and `children`: the host validates the output, these types guide authors.
// Types only: nothing here exists at run time.

/** Extra props are allowed on every element. */
export interface Permissive {
  [prop: string]: unknown;
}

/** What a button (or other interactive element) sends to the component's `action()`. */
export interface ContentKitAction extends Permissive {
  action: string;
}

/** Props of each element, by tag (without `type` and `children`). */
export interface ContentKitElementProps {
  block: Permissive;
  box: Permissive;
  vstack: Permissive;
  hstack: Permissive;
  divider: Permissive;
  card: Permissive & { title?: string; onPress?: ContentKitAction };
  button: Permissive & { label: string; onPress: ContentKitAction; style?: string; disabled?: boolean };
  text: Permissive & { style?: string };
  markdown: Permissive & { content: string };
  hint: Permissive;
  link: Permissive & { target: string | ContentKitAction | Permissive };
  image: Permissive & { source: string | Permissive; aspectRatio?: number };
  codeblock: Permissive & { content: string; syntax?: string };
  input: Permissive & { label?: string; element?: ContentKitElement };
  textinput: Permissive & { state?: string; initialValue?: string; placeholder?: string; multiline?: boolean };
  select: Permissive & { state?: string; options: Array<{ id: string; label: string } | Permissive> | Permissive };
  switch: Permissive & { state?: string; initialValue?: boolean };
  checkbox: Permissive & { state?: string; value?: string | number; initialValue?: boolean };
  modal: Permissive & { title?: string };
  configuration: Permissive;
}

export type ContentKitTag = keyof ContentKitElementProps;

/** A child: an element or text (numbers are turned into text by the JSX runtime). */
export type ContentKitChild = ContentKitElement | string;

/** Anything JSX accepts as children before flattening. */
export type ContentKitNode = ContentKitChild | number | boolean | null | undefined | ContentKitNode[];

export type ContentKitElement = {
  [Tag in ContentKitTag]: ContentKitElementProps[Tag] & { type: Tag; children?: ContentKitChild[] };
}[ContentKitTag];

/** The props JSX accepts for an intrinsic tag. */
export type ContentKitIntrinsicProps = {
  [Tag in ContentKitTag]: ContentKitElementProps[Tag] & { children?: ContentKitNode; key?: string | number };
};
