// The ContentKit renderer's shared pieces: readers of guest data, the fixed tables that alone turn
// guest enums into classes, tags or glyphs, DOM helpers that put text only through textContent (never
// innerHTML), and the one message listener through which sandboxed webframes send actions.

export interface RenderHandlers {
  /** The component state as it is now (inputs change it between renders). */
  getState(): Record<string, unknown>;
  /** A control's action (`onPress`, `onValueChange`, a webframe message…), copied. */
  onAction(action: Record<string, unknown>): void;
  /** An input bound to `state` changed. */
  onStateChange(key: string, value: unknown): void;
  /** True while a render request is in flight: controls are disabled. */
  busy: boolean;
}

/** What the form controls (controls.ts) need of the renderer; the Renderer in render.ts is one. */
export interface RenderContext {
  readonly handlers: RenderHandlers;
  /** The component state as it is now. */
  readonly state: Record<string, unknown>;
  /** An input changed a state key: record it, then tell every webframe the new state. */
  changeState(key: string, value: unknown): void;
  /** Runs `apply` now, or after the element's inline `confirm`; `cancel` restores a control. */
  confirmThen(anchor: HTMLElement, confirm: unknown, apply: () => void, cancel?: () => void): void;
  /** An element as DOM; `labelledId` is the id an <input> label points at. */
  node(element: Props, depth: number, labelledId?: string): Node;
  /** Elements and strings of `children` appended to `parent`. */
  children(parent: HTMLElement, value: unknown, depth: number): void;
}

export type Props = Record<string, unknown>;

export function prop(element: Props, key: string): unknown {
  return Object.hasOwn(element, key) ? element[key] : undefined;
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function isObject(value: unknown): value is Props {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

/** Guest enums become classes only through these tables: an unknown value gets no class at all. */
export const BUTTON_STYLE = new Map([
  ['primary', 'ck-button-primary'],
  ['secondary', 'ck-button-secondary'],
  ['danger', 'ck-button-danger'],
]);
export const ALIGN = new Map([
  ['start', 'ck-align-start'],
  ['center', 'ck-align-center'],
  ['end', 'ck-align-end'],
]);
export const DIVIDER = new Map([
  ['small', 'ck-divider-small'],
  ['medium', 'ck-divider-medium'],
  ['large', 'ck-divider-large'],
]);
export const MODAL_SIZE = new Map([
  ['medium', 'ck-modal-medium'],
  ['xlarge', 'ck-modal-xlarge'],
  ['fullscreen', 'ck-modal-fullscreen'],
]);
export const TEXT_TAG = new Map<string, 'strong' | 'em' | 's' | 'code'>([
  ['bold', 'strong'],
  ['italic', 'em'],
  ['strikethrough', 's'],
  ['code', 'code'],
]);
export const INPUT_TYPE = new Map([
  ['text', 'text'],
  ['password', 'password'],
  ['email', 'email'],
]);
/** ContentKit's icon names as glyphs (decoration: the label or tooltip carries the meaning). */
const ICONS = new Map([
  ['close', '✕'],
  ['edit', '✎'],
  ['github', '⌥'],
  ['gitlab', '⌥'],
  ['maximize', '⤢'],
  ['email', '✉'],
  ['settings', '⚙'],
  ['search', '⌕'],
  ['delete', '🗑'],
  ['star', '★'],
  ['warning', '⚠'],
  ['link', '🔗'],
  ['link-external', '↗'],
  ['eye', '👁'],
  ['eye-off', '⊘'],
  ['lock', '🔒'],
  ['check', '✓'],
  ['check-circle', '✔'],
]);

/**
 * Webframes currently shown, and what their messages may do: one `message` listener for all of
 * them; a message counts only when its source is the window of a frame still in the document.
 */
export const frameActions = new Map<HTMLIFrameElement, (action: Record<string, unknown>) => void>();
addEventListener('message', (event: MessageEvent) => {
  for (const [frame, act] of frameActions) {
    if (!frame.isConnected) {
      frameActions.delete(frame);
      continue;
    }
    if (event.source === null || event.source !== frame.contentWindow || !isObject(event.data)) continue;
    const action = copyAction(prop(event.data, 'action'));
    if (action) act(action);
  }
});

let ids = 0;
export const nextId = () => `ck-${++ids}`;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

/** Copies an action through JSON: a plain object of the console's realm, nothing else attached. */
export function copyAction(value: unknown): Props | null {
  if (!isObject(value) || typeof prop(value, 'action') !== 'string') return null;
  try {
    return JSON.parse(JSON.stringify(value)) as Props;
  } catch {
    return null;
  }
}

export function blocked(what: string, raw: string): HTMLElement {
  const span = el('span', 'ck-blocked');
  span.textContent =
    `[${what} not shown: only http(s) URLs are ` +
    `allowed${raw ? `; it was ${raw.length > 120 ? `${raw.slice(0, 120)}…` : raw}` : ''}]`;
  return span;
}

export function positiveNumber(value: unknown, max: number): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, max) : null;
}

export function icon(name: unknown): HTMLElement | null {
  const glyph = ICONS.get(String(name));
  if (glyph === undefined) return null;
  const span = el('span', 'ck-icon');
  span.setAttribute('aria-hidden', 'true');
  span.textContent = glyph;
  return span;
}

/** A ContentKit URL: a string, or `{ host, pathname, query }` (always https, query values as text). */
export function contentKitUrl(value: unknown, state: Record<string, unknown>): unknown {
  if (!isObject(value)) return value;
  const host = text(prop(value, 'host'));
  const pathname = text(prop(value, 'pathname'));
  if (host === undefined || pathname === undefined) return '';
  const query = new URLSearchParams();
  const entries = prop(value, 'query');
  if (isObject(entries)) for (const [key, entry] of Object.entries(entries)) query.set(key, bound(entry, state));
  const search = query.toString();
  return `https://${host}${pathname.startsWith('/') ? '' : '/'}${pathname}${search ? `?${search}` : ''}`;
}

/** A string, or a `{ "$state": key }` binding read from the component state. */
export function bound(value: unknown, state: Record<string, unknown>): string {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof prop(value, '$state') === 'string') {
    const key = prop(value, '$state') as string;
    const current = Object.hasOwn(state, key) ? state[key] : undefined;
    return current === undefined || current === null
      ? ''
      : typeof current === 'string'
        ? current
        : JSON.stringify(current);
  }
  return '';
}
