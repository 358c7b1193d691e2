// ContentKit JSX runtime (esbuild/TypeScript "automatic" JSX with jsxImportSource 'sandbox-api'):
// lowercase tags become plain ContentKit objects, function components are called with their props.
// Provided to bundles by the runtime (runtime/provided.ts): self-contained, imports types only.
import type {
  ContentKitChild,
  ContentKitElement,
  ContentKitIntrinsicProps,
  ContentKitNode,
} from './contentkit/elements.ts';

export type { ContentKitChild, ContentKitElement, ContentKitNode } from './contentkit/elements.ts';

type Props = Record<string, unknown> & { children?: ContentKitNode };
type Component = (props: Props) => ContentKitNode;

/** Arrays flattened; null, undefined and booleans dropped; numbers become text. */
function flattenChildren(children: unknown, out: ContentKitChild[] = []): ContentKitChild[] {
  if (Array.isArray(children)) for (const child of children) flattenChildren(child, out);
  else if (typeof children === 'string') out.push(children);
  else if (typeof children === 'number' || typeof children === 'bigint') out.push(String(children));
  else if (children !== null && children !== undefined && typeof children !== 'boolean')
    out.push(children as ContentKitElement);
  return out;
}

export function jsx(type: string | Component, props: Props | null, _key?: unknown): ContentKitElement {
  const allProps: Props = props ?? {};
  if (typeof type === 'function') return type(allProps) as ContentKitElement;
  if (typeof type !== 'string')
    throw new TypeError(`JSX element type must be a ContentKit tag or a function, got ${typeof type}`);
  const { children, ...rest } = allProps;
  const element: Record<string, unknown> = { type, ...rest };
  element.type = type; // a prop named "type" never overrides the tag
  if (children !== undefined) element.children = flattenChildren(children);
  return element as ContentKitElement;
}

export const jsxs = jsx;

/** `<>…</>`: its children, flattened into the parent. */
export function Fragment(props: { children?: ContentKitNode }): ContentKitElement {
  return flattenChildren(props.children) as unknown as ContentKitElement;
}

export declare namespace JSX {
  type Element = ContentKitElement;
  type IntrinsicElements = ContentKitIntrinsicProps;
  interface ElementChildrenAttribute {
    children: {};
  }
}
