// Renders a component's ContentKit output (GitBook's ContentKit, as the host validates it; see
// docs/console.md) as DOM nodes: node dispatch, layout, buttons, modal, card, link, image, webframe,
// codeblock (the form controls are in controls.ts). The output is guest data: every string reaches
// the page through textContent, a text node, or an attribute from a fixed list set with the DOM API
// (never innerHTML, never a guest-chosen attribute name, class or style string); URLs pass
// safeHttpUrl or become inert text; webframes go into <iframe sandbox="allow-scripts"> (opaque origin).

import { renderMarkdown } from './markdown.ts';
import { urlOf } from './urls.ts';
import { input, name, select, stateKey, stepContent, stepper, textInput, toggle } from './controls.ts';
import {
  ALIGN,
  blocked,
  bound,
  BUTTON_STYLE,
  contentKitUrl,
  copyAction,
  DIVIDER,
  el,
  frameActions,
  icon,
  isObject,
  list,
  MODAL_SIZE,
  nextId,
  positiveNumber,
  prop,
  text,
  TEXT_TAG,
  type Props,
  type RenderContext,
  type RenderHandlers,
} from './helpers.ts';

export type { RenderHandlers } from './helpers.ts';

const MAX_DEPTH = 64;

class Renderer implements RenderContext {
  readonly handlers: RenderHandlers;
  constructor(handlers: RenderHandlers) {
    this.handlers = handlers;
  }

  /** Webframes of this render with their `data`, told the state whenever it changes. */
  readonly frames: { frame: HTMLIFrameElement; data: Props }[] = [];

  get state(): Record<string, unknown> {
    return this.handlers.getState();
  }

  /** An input changed a state key: record it, then tell every webframe the new state. */
  changeState(key: string, value: unknown): void {
    this.handlers.onStateChange(key, value);
    for (const { frame, data } of this.frames) this.postState(frame, data);
  }

  /** GitBook's webframe protocol: the frame gets `{ state }`, its `data` with bindings resolved. */
  postState(frame: HTMLIFrameElement, data: Props): void {
    const state: Record<string, string> = {};
    for (const [key, value] of Object.entries(data))
      Object.defineProperty(state, key, { value: bound(value, this.state), enumerable: true });
    frame.contentWindow?.postMessage({ state }, '*');
  }

  /** Elements and strings of `children` (strings become text nodes). */
  children(parent: HTMLElement, value: unknown, depth: number): void {
    for (const child of list(value)) {
      if (typeof child === 'string' || typeof child === 'number') parent.append(document.createTextNode(String(child)));
      else if (isObject(child)) parent.append(this.node(child, depth + 1));
    }
  }

  node(element: Props, depth: number, labelledId?: string): Node {
    if (depth > MAX_DEPTH) return document.createTextNode('[nested too deeply]');
    const type = text(prop(element, 'type'));
    switch (type) {
      case 'block':
        return this.block(element, depth);
      case 'configuration': {
        const div = el('div', 'ck-configuration');
        this.children(div, prop(element, 'children'), depth);
        return div;
      }
      case 'modal':
        return this.modal(element, depth);
      case 'vstack':
      case 'hstack': {
        const div = el('div', type === 'vstack' ? 'ck-vstack' : 'ck-hstack');
        const align = ALIGN.get(String(prop(element, 'align')));
        if (align) div.classList.add(align);
        this.children(div, prop(element, 'children'), depth);
        return div;
      }
      case 'box': {
        const div = el('div', 'ck-box');
        const grow = positiveNumber(prop(element, 'grow'), 12);
        // A number through the CSSOM, never a style string from guest data.
        if (grow !== null) div.style.flexGrow = String(grow);
        this.children(div, prop(element, 'children'), depth);
        return div;
      }
      case 'text': {
        const tag = TEXT_TAG.get(String(prop(element, 'style')));
        const node = tag ? document.createElement(tag) : el('span');
        node.classList.add('ck-text');
        this.children(node, prop(element, 'children'), depth);
        return node;
      }
      case 'hint': {
        const p = el('p', 'ck-hint');
        this.children(p, prop(element, 'children'), depth);
        return p;
      }
      case 'markdown': {
        const div = el('div', 'ck-markdown');
        div.append(renderMarkdown(bound(prop(element, 'content'), this.state), { headingLevelOffset: 3 }));
        return div;
      }
      case 'codeblock':
        return this.codeblock(element, depth, labelledId);
      case 'divider': {
        const hr = el('hr', 'ck-divider');
        const size = DIVIDER.get(String(prop(element, 'size')));
        if (size) hr.classList.add(size);
        return hr;
      }
      case 'button':
        return this.button(element, labelledId);
      case 'card':
        return this.card(element, depth);
      case 'link':
        return this.link(element, depth);
      case 'image':
        return this.image(element);
      case 'webframe':
        return this.webframe(element);
      case 'input':
        return input(this, element, depth);
      case 'textinput':
        return textInput(this, element, labelledId);
      case 'select':
        return select(this, element, labelledId);
      case 'switch':
      case 'checkbox':
      case 'radio':
        return toggle(this, element, type, labelledId);
      case 'stepper':
        return stepper(this, element, depth);
      case 'step':
        return stepContent(this, element, depth);
      default: {
        const span = el('span', 'ck-unknown');
        span.textContent = `[unsupported element${type ? ` "${type}"` : ''}]`;
        return span;
      }
    }
  }

  /**
   * Runs `apply` now, or after an inline confirmation when the element asks for one (ContentKit's
   * `confirm`: title, text, confirm label, style). `cancel` restores a control that already moved.
   */
  confirmThen(anchor: HTMLElement, confirm: unknown, apply: () => void, cancel: () => void = () => undefined): void {
    if (!isObject(confirm)) {
      apply();
      return;
    }
    anchor.parentElement?.querySelector(':scope > .ck-confirm')?.remove();
    const panel = el('div', 'ck-confirm');
    panel.setAttribute('role', 'alertdialog');
    const titleId = nextId();
    const title = el('p', 'ck-confirm-title');
    title.id = titleId;
    title.textContent = text(prop(confirm, 'title')) ?? 'Confirm';
    panel.setAttribute('aria-labelledby', titleId);
    const body = el('p');
    body.textContent = text(prop(confirm, 'text')) ?? '';
    const yes = el('button', prop(confirm, 'style') === 'danger' ? 'ck-button-danger' : 'ck-button-primary');
    yes.type = 'button';
    yes.textContent = text(prop(confirm, 'confirm')) ?? 'Confirm';
    const no = el('button');
    no.type = 'button';
    no.textContent = 'Cancel';
    yes.addEventListener('click', () => {
      panel.remove();
      apply();
    });
    no.addEventListener('click', () => {
      panel.remove();
      cancel();
      anchor.focus();
    });
    panel.append(title, body, yes, ' ', no);
    anchor.insertAdjacentElement('afterend', panel);
    yes.focus();
  }

  button(element: Props, labelledId?: string): HTMLButtonElement {
    const button = el('button', 'ck-button');
    button.type = 'button';
    if (labelledId) button.id = labelledId;
    const style = BUTTON_STYLE.get(String(prop(element, 'style')));
    if (style) button.classList.add(style);
    const leading = icon(prop(element, 'icon'));
    const trailing = icon(prop(element, 'trailingIcon'));
    const label = text(prop(element, 'label'));
    const tooltip = text(prop(element, 'tooltip'));
    if (leading) button.append(leading);
    if (label) button.append(document.createTextNode(label));
    if (trailing) button.append(trailing);
    if (tooltip) button.title = tooltip;
    if (!label) button.setAttribute('aria-label', tooltip ?? String(prop(element, 'icon') ?? 'button'));
    const action = copyAction(prop(element, 'onPress'));
    button.disabled = this.handlers.busy || prop(element, 'disabled') === true || action === null;
    if (action)
      button.addEventListener('click', () =>
        this.confirmThen(button, prop(element, 'confirm'), () => this.handlers.onAction(action)),
      );
    return button;
  }

  buttons(value: unknown): HTMLElement | null {
    const items = list(value).filter(isObject);
    if (items.length === 0) return null;
    const row = el('div', 'ck-buttons');
    for (const item of items) row.append(this.button(item));
    return row;
  }

  block(element: Props, depth: number): HTMLElement {
    const div = el('div', 'ck-block');
    // Controls: the block's menu (a flat list, or groups of items).
    const controls = list(prop(element, 'controls'))
      .flatMap((entry) => (Array.isArray(entry) ? entry : [entry]))
      .filter(isObject);
    if (controls.length > 0) {
      const menu = el('div', 'ck-controls');
      menu.setAttribute('role', 'group');
      menu.setAttribute('aria-label', 'Block controls');
      for (const control of controls)
        menu.append(
          this.button({
            type: 'button',
            label: prop(control, 'label'),
            icon: prop(control, 'icon'),
            onPress: prop(control, 'onPress'),
            confirm: prop(control, 'confirm'),
          }),
        );
      div.append(menu);
    }
    this.children(div, prop(element, 'children'), depth);
    return div;
  }

  modal(element: Props, depth: number): HTMLElement {
    const section = el('section', 'ck-modal');
    const size = MODAL_SIZE.get(String(prop(element, 'size')));
    if (size) section.classList.add(size);
    const title = text(prop(element, 'title'));
    if (title) {
      const h = el('h4', 'ck-modal-title');
      h.textContent = title;
      section.append(h);
    }
    const subtitle = prop(element, 'subtitle');
    if (subtitle !== undefined) {
      const p = el('p', 'ck-hint');
      this.children(p, subtitle, depth);
      section.append(p);
    }
    const body = el('div', 'ck-modal-body');
    this.children(body, prop(element, 'children'), depth);
    section.append(body);
    const submit = prop(element, 'submit');
    if (isObject(submit)) section.append(this.button(submit));
    return section;
  }

  card(element: Props, depth: number): HTMLElement {
    const card = el('section', 'ck-card');
    const title = text(prop(element, 'title'));
    const action = copyAction(prop(element, 'onPress'));
    const header = el('div', 'ck-card-header');
    const cardIcon = prop(element, 'icon');
    if (typeof cardIcon === 'string') {
      const glyph = icon(cardIcon);
      if (glyph) header.append(glyph);
    } else if (isObject(cardIcon)) header.append(this.image(cardIcon, 'ck-card-icon'));
    if (title) {
      const heading = el('h4', 'ck-card-title');
      if (action) {
        const press = el('button', 'ck-card-press');
        press.type = 'button';
        press.textContent = title;
        press.disabled = this.handlers.busy;
        press.addEventListener('click', () => this.handlers.onAction(action));
        heading.append(press);
      } else heading.textContent = title;
      header.append(heading);
    }
    const buttons = this.buttons(prop(element, 'buttons'));
    if (buttons) header.append(buttons);
    card.append(header);
    const hint = prop(element, 'hint');
    if (hint !== undefined) {
      const p = el('p', 'ck-hint');
      this.children(p, hint, depth);
      card.append(p);
    }
    const body = el('div', 'ck-card-body');
    this.children(body, prop(element, 'children'), depth);
    card.append(body);
    return card;
  }

  link(element: Props, depth: number): HTMLElement {
    const target = prop(element, 'target');
    const { url, raw } = urlOf(isObject(target) ? { url: contentKitUrl(prop(target, 'url'), this.state) } : target);
    if (url === null) {
      const span = el('span', 'ck-link-inert');
      this.children(span, prop(element, 'children'), depth);
      span.append(' ', blocked('link', raw));
      return span;
    }
    const anchor = el('a', 'ck-link');
    anchor.href = url;
    anchor.target = '_blank';
    anchor.rel = 'noopener noreferrer nofollow';
    this.children(anchor, prop(element, 'children'), depth);
    if (anchor.childNodes.length === 0) anchor.textContent = url;
    return anchor;
  }

  image(element: Props, className = 'ck-image'): HTMLElement {
    const { url, raw } = urlOf(prop(element, 'source'));
    if (url === null) return blocked('image', raw);
    const img = el('img', className);
    img.src = url;
    img.alt = '';
    img.referrerPolicy = 'no-referrer';
    img.loading = 'lazy';
    const ratio = positiveNumber(prop(element, 'aspectRatio'), 100);
    if (ratio !== null) img.style.aspectRatio = String(ratio);
    return img;
  }

  webframe(element: Props): HTMLElement {
    const { url, raw } = urlOf(prop(element, 'source'));
    if (url === null) return blocked('webframe', raw);
    const wrapper = el('div', 'ck-webframe-wrapper');
    const frame = el('iframe', 'ck-webframe');
    // Scripts may run, but in an opaque origin: no same-origin, no top navigation, no popups, no
    // forms, no modals. The CSP's frame-src allows only http(s) as well.
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.referrerPolicy = 'no-referrer';
    frame.title = 'Webframe of the component';
    frame.src = url;
    const ratio = positiveNumber(prop(element, 'aspectRatio'), 100);
    if (ratio !== null) frame.style.aspectRatio = String(ratio);
    // `data` goes to the frame as `{ state }` when it loads, when it says `@webframe.ready`, and
    // after every state change; any other `{ action }` it posts is handled like a button's.
    const data = isObject(prop(element, 'data')) ? (prop(element, 'data') as Props) : {};
    this.frames.push({ frame, data });
    frame.addEventListener('load', () => this.postState(frame, data));
    frameActions.set(frame, (action) => {
      const name = String(action.action);
      if (name === '@webframe.ready') this.postState(frame, data);
      else if (name === '@webframe.resize') this.resize(frame, action);
      else if (!name.startsWith('@webframe.') && !this.handlers.busy) this.handlers.onAction(action);
    });
    wrapper.append(frame);
    const buttons = this.buttons(prop(element, 'buttons'));
    if (buttons) wrapper.append(buttons);
    return wrapper;
  }

  /** `@webframe.resize` `{ size: { aspectRatio? , height? } }`: numbers only, bounded. */
  resize(frame: HTMLIFrameElement, action: Props): void {
    const size = prop(action, 'size');
    if (!isObject(size)) return;
    const ratio = positiveNumber(prop(size, 'aspectRatio'), 100);
    const height = positiveNumber(prop(size, 'height'), 4000);
    if (ratio !== null) frame.style.aspectRatio = String(ratio);
    if (height !== null) {
      frame.style.aspectRatio = '';
      frame.style.height = `${Math.round(height)}px`;
    }
  }

  codeblock(element: Props, depth: number, labelledId?: string): HTMLElement {
    const wrapper = el('div', 'ck-codeblock-wrapper');
    for (const part of list(prop(element, 'header'))) if (isObject(part)) wrapper.append(this.node(part, depth + 1));
    const key = stateKey(element);
    const content =
      key !== null && Object.hasOwn(this.state, key)
        ? bound({ $state: key }, this.state)
        : bound(prop(element, 'content'), this.state);
    // The syntax name is shown as text, never used as a class or attribute value that styles.
    const syntax = text(prop(element, 'syntax'));
    if (key !== null) {
      // Editable when bound to state: a textarea; onContentChange fires when it loses the focus.
      const area = el('textarea', 'ck-codeblock ck-codeblock-edit');
      area.value = content;
      area.spellcheck = false;
      name(area, labelledId, syntax ? `code (${syntax})` : 'code');
      area.disabled = this.handlers.busy;
      area.addEventListener('input', () => this.changeState(key, area.value));
      const action = copyAction(prop(element, 'onContentChange'));
      if (action) area.addEventListener('change', () => this.handlers.onAction(action));
      wrapper.append(area);
    } else {
      const pre = el('pre', 'ck-codeblock');
      const code = el('code');
      code.textContent = content;
      if (syntax) pre.setAttribute('aria-label', `code (${syntax})`);
      pre.append(code);
      wrapper.append(pre);
    }
    const buttons = this.buttons(prop(element, 'buttons'));
    if (buttons) wrapper.append(buttons);
    for (const part of list(prop(element, 'footer'))) if (isObject(part)) wrapper.append(this.node(part, depth + 1));
    return wrapper;
  }
}

export function renderContentKit(element: unknown, handlers: RenderHandlers): Node {
  if (!isObject(element)) {
    const span = el('span', 'ck-unknown');
    span.textContent = '[the component rendered nothing the console can show]';
    return span;
  }
  return new Renderer(handlers).node(element, 0);
}
