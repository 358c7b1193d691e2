// ContentKit's form controls (input, textinput, select, switch/checkbox/radio, stepper) as DOM:
// guest strings reach the page only as textContent, control values or fixed-list attributes set
// with the DOM API; never innerHTML, never a guest-chosen attribute name, class or style string.

import {
  copyAction,
  el,
  INPUT_TYPE,
  isObject,
  list,
  nextId,
  prop,
  text,
  type Props,
  type RenderContext,
} from './helpers.ts';

export function input(ctx: RenderContext, element: Props, depth: number): HTMLElement {
  const wrapper = el('div', 'ck-input');
  const id = nextId();
  const label = el('label');
  label.htmlFor = id;
  label.textContent = text(prop(element, 'label')) ?? '';
  wrapper.append(label);
  const inner = prop(element, 'element');
  if (isObject(inner)) wrapper.append(ctx.node(inner, depth + 1, id));
  const hint = prop(element, 'hint');
  if (hint !== undefined) {
    const p = el('p', 'ck-hint');
    p.id = `${id}-hint`;
    ctx.children(p, hint, depth);
    wrapper.append(p);
    wrapper.querySelector(`#${id}`)?.setAttribute('aria-describedby', p.id);
  }
  return wrapper;
}

export function stateKey(element: Props): string | null {
  const key = text(prop(element, 'state'));
  return key === undefined || key === '' ? null : key;
}

function currentValue(ctx: RenderContext, key: string | null, initial: unknown): unknown {
  if (key !== null && Object.hasOwn(ctx.state, key)) return ctx.state[key];
  return initial;
}

/** A control without an <input> label around it still gets an accessible name. */
export function name(control: HTMLElement, labelledId: string | undefined, fallback: string): void {
  if (labelledId) control.id = labelledId;
  else control.setAttribute('aria-label', fallback);
}

/** Sends `onValueChange` (if any) after a bound input changed. */
function valueChanged(ctx: RenderContext, element: Props): void {
  const action = copyAction(prop(element, 'onValueChange'));
  if (action) ctx.handlers.onAction(action);
}

export function textInput(ctx: RenderContext, element: Props, labelledId: string | undefined): HTMLElement {
  const key = stateKey(element);
  const multiline = prop(element, 'multiline') === true;
  const control = multiline ? el('textarea', 'ck-textinput') : el('input', 'ck-textinput');
  if (control instanceof HTMLInputElement) control.type = INPUT_TYPE.get(String(prop(element, 'inputType'))) ?? 'text';
  const value = currentValue(ctx, key, prop(element, 'initialValue'));
  control.value = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  const placeholder = text(prop(element, 'placeholder'));
  if (placeholder) control.placeholder = placeholder;
  name(control, labelledId, key ?? 'text input');
  control.disabled = ctx.handlers.busy || prop(element, 'disabled') === true;
  if (key !== null) control.addEventListener('input', () => ctx.changeState(key, control.value));
  return control;
}

export function select(ctx: RenderContext, element: Props, labelledId: string | undefined): HTMLElement {
  const key = stateKey(element);
  const select = el('select', 'ck-select');
  name(select, labelledId, key ?? 'select');
  const multiple = prop(element, 'multiple') === true;
  select.multiple = multiple;
  const options = prop(element, 'options');
  const current = currentValue(ctx, key, prop(element, 'initialValue'));
  const chosen = new Set(
    (Array.isArray(current) ? current : [current]).filter((v): v is string => typeof v === 'string'),
  );
  if (!Array.isArray(options)) {
    // `{ url }` or `{ source: "openapi" }`: options a real platform fetches; the preview does not.
    const option = el('option');
    option.textContent = 'Options loaded from a URL or a built-in source are not fetched in the preview';
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
    if (!isObject(entry)) continue;
    const option = el('option');
    option.value = text(prop(entry, 'id')) ?? '';
    option.textContent = text(prop(entry, 'label')) ?? option.value;
    option.selected = chosen.has(option.value);
    select.append(option);
  }
  select.disabled = ctx.handlers.busy || prop(element, 'disabled') === true;
  if (key !== null) {
    select.addEventListener('change', () => {
      ctx.changeState(key, multiple ? [...select.selectedOptions].map((option) => option.value) : select.value);
      valueChanged(ctx, element);
    });
  }
  return select;
}

export function toggle(
  ctx: RenderContext,
  element: Props,
  type: 'switch' | 'checkbox' | 'radio',
  labelledId: string | undefined,
): HTMLElement {
  const key = stateKey(element);
  const input = el('input', `ck-${type}`);
  input.type = type === 'radio' ? 'radio' : 'checkbox';
  if (type === 'switch') input.setAttribute('role', 'switch');
  if (type === 'radio' && key !== null) input.name = `ck-radio-${key}`;
  const value = prop(element, 'value');
  name(input, labelledId, type === 'switch' ? (key ?? type) : `${key ?? type}: ${String(value)}`);
  const current = currentValue(ctx, key, prop(element, 'initialValue'));
  // A switch holds a boolean; a checkbox adds its value to an array; a radio holds its value.
  if (type === 'switch') input.checked = current === true;
  else if (type === 'checkbox') input.checked = Array.isArray(current) ? current.includes(value) : current === value;
  else input.checked = current === value;
  input.disabled = ctx.handlers.busy || prop(element, 'disabled') === true;
  if (key !== null) {
    input.addEventListener('change', () => {
      const checked = input.checked;
      const apply = () => {
        input.checked = checked;
        if (type === 'switch') ctx.changeState(key, checked);
        else if (type === 'radio') ctx.changeState(key, value);
        else {
          const now = currentValue(ctx, key, []);
          const values = (Array.isArray(now) ? now : []).filter((entry) => entry !== value);
          ctx.changeState(key, checked ? [...values, value] : values);
        }
        valueChanged(ctx, element);
      };
      // Held back until confirmed (ContentKit `confirm`); Cancel puts the control back.
      if (isObject(prop(element, 'confirm'))) input.checked = !checked;
      ctx.confirmThen(input, prop(element, 'confirm'), apply, () => undefined);
    });
  }
  return input;
}

export function stepper(ctx: RenderContext, element: Props, depth: number): HTMLElement {
  const section = el('section', 'ck-stepper');
  const active = text(prop(element, 'activeStep'));
  const steps = list(prop(element, 'children')).filter(isObject);
  const nav = el('ol', 'ck-steps');
  steps.forEach((step) => {
    const li = el('li');
    li.textContent = text(prop(step, 'title')) ?? text(prop(step, 'id')) ?? '';
    if (prop(step, 'id') === active) li.setAttribute('aria-current', 'step');
    nav.append(li);
  });
  section.append(nav);
  const index = Math.max(
    0,
    steps.findIndex((step) => prop(step, 'id') === active),
  );
  const step = steps[index];
  if (step) {
    section.append(stepContent(ctx, step, depth));
    const last = index === steps.length - 1;
    const action = copyAction(prop(element, last ? 'onComplete' : 'onStepChange'));
    const next = el('button', 'ck-button ck-button-primary');
    next.type = 'button';
    next.textContent = last ? 'Complete' : 'Next step';
    next.disabled = ctx.handlers.busy || action === null || (!last && prop(step, 'next') === false);
    if (action) next.addEventListener('click', () => ctx.handlers.onAction(action));
    section.append(next);
  }
  return section;
}

/** A step of a stepper (or a lone `step`): its children. */
export function stepContent(ctx: RenderContext, element: Props, depth: number): HTMLElement {
  const div = el('div', 'ck-step');
  ctx.children(div, prop(element, 'children'), depth);
  return div;
}
