// A console link: an ordinary <a href> the router takes over (router.ts), so it works with the
// keyboard, opens in a new tab with a modifier, and has a real URL.
import type { ComponentChildren } from 'preact';

export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) {
  return (
    <a href={props.href} data-route="" class={props.class} aria-current={props['aria-current']}>
      {props.children}
    </a>
  );
}
