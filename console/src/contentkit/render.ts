// Renders a component's ContentKit output (README, "HTTP surface": the render route) as DOM nodes.
// The output is guest data: every string reaches the page through textContent, a text node, or
// an attribute set with the DOM API from a fixed list (never innerHTML, never a guest-chosen
// attribute name, class or style string); URLs pass safeHttpUrl or become inert text; webframes
// go into <iframe sandbox="allow-scripts"> (an opaque origin: no access to the console).

import { renderMarkdown } from './markdown.ts';
import { urlOf } from './urls.ts';

export interface RenderHandlers {
  /** The component state inputs read their current value from. */
  state: Record<string, unknown>;
  /** A button (or card) was pressed: its `onPress` action, copied. */
  onAction(action: Record<string, unknown>): void;
  /** An input bound to `state` changed. */
  onStateChange(key: string, value: unknown): void;
  /** True while a render request is in flight: controls are disabled. */
  busy: boolean;
}

const MAX_DEPTH = 64;

type Props = Record<string, unknown>;

function prop(element: Props, key: string): unknown {
  return Object.hasOwn(element, key) ? element[key] : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isElement(value: unknown): value is Props {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Guest enums become classes only through these tables: an unknown value gets no class at all. */
const BUTTON_STYLE = new Map([['primary', 'ck-button-primary'], ['secondary', 'ck-button-secondary'], ['danger', 'ck-button-danger']]);
const ALIGN = new Map([['start', 'ck-align-start'], ['center', 'ck-align-center'], ['end', 'ck-align-end']]);
const DIVIDER = new Map([['small', 'ck-divider-small'], ['medium', 'ck-divider-medium'], ['large', 'ck-divider-large']]);
const TEXT_TAG = new Map([['bold', 'strong'], ['italic', 'em'], ['strikethrough', 's'], ['code', 'code']]);

let ids = 0;
const nextId = () => `ck-${++ids}`;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

/** Copies an action through JSON: a plain object of the console's realm, nothing else attached. */
function copyAction(value: unknown): Props | null {
  if (!isElement(value) || typeof prop(value, 'action') !== 'string') return null;
  try {
    return JSON.parse(JSON.stringify(value)) as Props;
  } catch {
    return null;
  }
}

function blocked(what: string, raw: string): HTMLElement {
  const span = el('span', 'ck-blocked');
  span.textContent = `[${what} not shown: only http(s) URLs are allowed${raw ? `; it was ${raw.length > 120 ? `${raw.slice(0, 120)}…` : raw}` : ''}]`;
  return span;
}

function positiveNumber(value: unknown, max: number): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, max) : null;
}

class Renderer {
  readonly handlers: RenderHandlers;
  constructor(handlers: RenderHandlers) {
    this.handlers = handlers;
  }

  children(parent: HTMLElement, value: unknown, depth: number): void {
    const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
    for (const child of list) {
      if (typeof child === 'string' || typeof child === 'number') parent.append(document.createTextNode(String(child)));
      else if (isElement(child)) parent.append(this.node(child, depth + 1));
    }
  }

  node(element: Props, depth: number, labelledId?: string): Node {
    if (depth > MAX_DEPTH) return document.createTextNode('[nested too deeply]');
    const type = text(prop(element, 'type'));
    switch (type) {
      case 'block':
      case 'configuration': {
        const div = el('div', `ck-${type}`);
        this.children(div, prop(element, 'children'), depth);
        return div;
      }
      case 'vstack':
      case 'hstack': {
        const div = el('div', `ck-${type}`);
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
        div.append(renderMarkdown(text(prop(element, 'content')) ?? '', { headingLevelOffset: 3 }));
        return div;
      }
      case 'codeblock': {
        const pre = el('pre', 'ck-codeblock');
        const code = el('code');
        code.textContent = text(prop(element, 'content')) ?? '';
        // The syntax name is shown as text, never used as a class or attribute.
        const syntax = text(prop(element, 'syntax'));
        if (syntax) pre.setAttribute('aria-label', `code (${syntax})`);
        pre.append(code);
        return pre;
      }
      case 'divider': {
        const hr = el('hr', 'ck-divider');
        const size = DIVIDER.get(String(prop(element, 'size')));
        if (size) hr.classList.add(size);
        return hr;
      }
      case 'button':
        return this.button(element);
      case 'card':
        return this.card(element, depth);
      case 'link': {
        const { url, raw } = urlOf(prop(element, 'target'));
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
      case 'image': {
        const { url, raw } = urlOf(prop(element, 'source'));
        if (url === null) return blocked('image', raw);
        const img = el('img', 'ck-image');
        img.src = url;
        img.alt = '';
        img.referrerPolicy = 'no-referrer';
        img.loading = 'lazy';
        const ratio = positiveNumber(prop(element, 'aspectRatio'), 100);
        if (ratio !== null) img.style.aspectRatio = String(ratio);
        return img;
      }
      case 'webframe': {
        const { url, raw } = urlOf(prop(element, 'source'));
        if (url === null) return blocked('webframe', raw);
        const frame = el('iframe', 'ck-webframe');
        // Scripts may run, but in an opaque origin: no same-origin, no top navigation, no
        // popups, no forms, no modals. The CSP's frame-src allows only http(s) as well.
        frame.setAttribute('sandbox', 'allow-scripts');
        frame.referrerPolicy = 'no-referrer';
        frame.title = 'Webframe of the component';
        frame.src = url;
        const ratio = positiveNumber(prop(element, 'aspectRatio'), 100);
        if (ratio !== null) frame.style.aspectRatio = String(ratio);
        return frame;
      }
      case 'input':
        return this.input(element, depth);
      case 'textinput':
        return this.textInput(element, labelledId);
      case 'select':
        return this.select(element, labelledId);
      case 'switch':
      case 'checkbox':
        return this.toggle(element, type, labelledId);
      case 'modal': {
        const section = el('section', 'ck-modal');
        const title = text(prop(element, 'title'));
        if (title) {
          const h = el('h4');
          h.textContent = title;
          section.append(h);
        }
        this.children(section, prop(element, 'children'), depth);
        return section;
      }
      default: {
        const span = el('span', 'ck-unknown');
        span.textContent = `[unsupported element${type ? ` "${type}"` : ''}]`;
        return span;
      }
    }
  }

  button(element: Props): HTMLButtonElement {
    const button = el('button', 'ck-button');
    button.type = 'button';
    const style = BUTTON_STYLE.get(String(prop(element, 'style')));
    if (style) button.classList.add(style);
    button.textContent = text(prop(element, 'label')) ?? '';
    const action = copyAction(prop(element, 'onPress'));
    button.disabled = this.handlers.busy || prop(element, 'disabled') === true || action === null;
    if (action) button.addEventListener('click', () => this.handlers.onAction(action));
    return button;
  }

  card(element: Props, depth: number): HTMLElement {
    const card = el('section', 'ck-card');
    const title = text(prop(element, 'title'));
    const action = copyAction(prop(element, 'onPress'));
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
      card.append(heading);
    }
    const icon = prop(element, 'icon');
    if (typeof icon === 'string') {
      const { url } = urlOf(icon);
      if (url) {
        const img = el('img', 'ck-card-icon');
        img.src = url;
        img.alt = '';
        img.referrerPolicy = 'no-referrer';
        card.append(img);
      }
    } else if (isElement(icon)) card.append(this.node(icon, depth + 1));
    const hint = text(prop(element, 'hint'));
    if (hint) {
      const p = el('p', 'ck-hint');
      p.textContent = hint;
      card.append(p);
    }
    const body = el('div', 'ck-card-body');
    this.children(body, prop(element, 'children'), depth);
    card.append(body);
    const buttons = prop(element, 'buttons');
    if (Array.isArray(buttons) && buttons.length > 0) {
      const row = el('div', 'ck-card-buttons');
      for (const button of buttons) if (isElement(button)) row.append(this.button(button));
      card.append(row);
    }
    return card;
  }

  input(element: Props, depth: number): HTMLElement {
    const wrapper = el('div', 'ck-input');
    const id = nextId();
    const label = el('label');
    label.htmlFor = id;
    label.textContent = text(prop(element, 'label')) ?? '';
    wrapper.append(label);
    const inner = prop(element, 'element');
    if (isElement(inner)) wrapper.append(this.node(inner, depth + 1, id));
    const hint = text(prop(element, 'hint'));
    if (hint) {
      const p = el('p', 'ck-hint');
      p.id = `${id}-hint`;
      p.textContent = hint;
      wrapper.append(p);
      wrapper.querySelector(`#${id}`)?.setAttribute('aria-describedby', p.id);
    }
    return wrapper;
  }

  stateKey(element: Props): string | null {
    const key = text(prop(element, 'state'));
    return key === undefined || key === '' ? null : key;
  }

  current(key: string | null, initial: unknown): unknown {
    if (key !== null && Object.hasOwn(this.handlers.state, key)) return this.handlers.state[key];
    return initial;
  }

  /** A control without an <input> label around it still gets an accessible name. */
  name(control: HTMLElement, labelledId: string | undefined, fallback: string): void {
    if (labelledId) control.id = labelledId;
    else control.setAttribute('aria-label', fallback);
  }

  textInput(element: Props, labelledId: string | undefined): HTMLElement {
    const key = this.stateKey(element);
    const multiline = prop(element, 'multiline') === true;
    const control = multiline ? el('textarea', 'ck-textinput') : el('input', 'ck-textinput');
    if (control instanceof HTMLInputElement) control.type = 'text';
    const value = this.current(key, prop(element, 'initialValue'));
    control.value = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
    const placeholder = text(prop(element, 'placeholder'));
    if (placeholder) control.placeholder = placeholder;
    this.name(control, labelledId, key ?? 'text input');
    control.disabled = this.handlers.busy;
    if (key !== null) control.addEventListener('input', () => this.handlers.onStateChange(key, control.value));
    return control;
  }

  select(element: Props, labelledId: string | undefined): HTMLElement {
    const key = this.stateKey(element);
    const select = el('select', 'ck-select');
    this.name(select, labelledId, key ?? 'select');
    const multiple = prop(element, 'multiple') === true;
    select.multiple = multiple;
    const options = prop(element, 'options');
    const current = this.current(key, prop(element, 'initialValue'));
    const chosen = new Set((Array.isArray(current) ? current : [current]).filter((v): v is string => typeof v === 'string'));
    if (!Array.isArray(options)) {
      // `{ url }`: options a real platform fetches from the integration; the preview does not.
      const option = el('option');
      option.textContent = 'Options loaded from a URL are not fetched in the preview';
      select.append(option);
      select.disabled = true;
      return select;
    }
    const placeholder = text(prop(element, 'placeholder'));
    if (!multiple) {
      const empty = el('option');
      empty.value = '';
      empty.textContent = placeholder ?? '—';
      select.append(empty);
    }
    for (const entry of options) {
      if (!isElement(entry)) continue;
      const option = el('option');
      option.value = text(prop(entry, 'id')) ?? '';
      option.textContent = text(prop(entry, 'label')) ?? option.value;
      option.selected = chosen.has(option.value);
      select.append(option);
    }
    select.disabled = this.handlers.busy;
    if (key !== null) {
      select.addEventListener('change', () => {
        this.handlers.onStateChange(key, multiple ? [...select.selectedOptions].map((option) => option.value) : select.value);
      });
    }
    return select;
  }

  toggle(element: Props, type: 'switch' | 'checkbox', labelledId: string | undefined): HTMLElement {
    const key = this.stateKey(element);
    const input = el('input', `ck-${type}`);
    input.type = 'checkbox';
    if (type === 'switch') input.setAttribute('role', 'switch');
    this.name(input, labelledId, key ?? type);
    const value = prop(element, 'value');
    const current = this.current(key, prop(element, 'initialValue'));
    input.checked = value !== undefined && value !== true ? current === value : current === true;
    input.disabled = this.handlers.busy;
    if (key !== null) {
      input.addEventListener('change', () => {
        // A checkbox with a `value` puts that value in state when checked; otherwise a boolean.
        this.handlers.onStateChange(key, value !== undefined && value !== true ? (input.checked ? value : null) : input.checked);
      });
    }
    return input;
  }
}

export function renderContentKit(element: unknown, handlers: RenderHandlers): Node {
  if (!isElement(element)) {
    const span = el('span', 'ck-unknown');
    span.textContent = '[the component rendered nothing the console can show]';
    return span;
  }
  return new Renderer(handlers).node(element, 0);
}
