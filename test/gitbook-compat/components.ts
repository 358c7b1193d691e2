// Renders one ContentKit component through the host's render route as GitBook's editor would, then
// presses the actions it offers: custom ones go back with the state, inputs filled and `$state`
// bindings resolved; `@ui.modal.open` renders the modal; `@ui.url.open` to the host is browsed.

import type { Step } from './evidence.ts';
import { browse } from './connect.ts';
import { stepOf, type HostClient } from './host-client.ts';
import type { MockThirdParty } from './mock-third-party.ts';
import { placeholderFor, type PlaceholderContext } from './placeholders.ts';

export interface RenderTarget {
  installationId: string;
  componentId: string;
  props: Record<string, unknown>;
  context: Record<string, unknown>;
  /** Shown in the steps: `block embed`, `configuration (site)`. */
  label: string;
  /** An action GitBook sends with the first render (`@link.unfurl` for a pasted link). */
  firstAction?: Record<string, unknown>;
}

/**
 * The state a user leaves after filling a form: every input bound to an empty state key gets a
 * placeholder (a text input its placeholder text, a select its first option), and every switch or
 * checkbox is turned on, as a user enables what the integration offers (GitBook's webhook refuses
 * to save with all its event switches off, as they start).
 */
export function filledState(
  element: unknown,
  state: Record<string, unknown>,
  context: PlaceholderContext,
): Record<string, unknown> {
  const filled = { ...state };
  const walk = (value: unknown, depth: number) => {
    if (depth > 100 || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) return value.forEach((entry) => walk(entry, depth + 1));
    const record = value as Record<string, unknown>;
    const key = record.state;
    if (typeof key === 'string' && (record.type === 'switch' || record.type === 'checkbox') && filled[key] !== true) {
      filled[key] = record.type === 'checkbox' && record.value !== undefined ? record.value : true;
    } else if (typeof key === 'string' && (filled[key] === undefined || filled[key] === '' || filled[key] === null)) {
      if (record.type === 'textinput') {
        filled[key] = placeholderFor(
          key,
          {
            type: record.inputType === 'number' ? 'number' : 'string',
            ...(record.inputType === 'url' ? { format: 'uri' } : {}),
          },
          context,
        );
      } else if (record.type === 'select' && Array.isArray(record.options) && record.options.length > 0) {
        const option = record.options[0] as { id?: unknown };
        if (option.id !== undefined) filled[key] = record.multiple === true ? [option.id] : option.id;
      }
    }
    for (const entry of Object.values(record)) walk(entry, depth + 1);
  };
  walk(element, 0);
  return filled;
}

/** An action as GitBook's client sends it: every `{ "$state": key }` binding replaced by the state's value. */
export function resolveBindings(value: unknown, state: Record<string, unknown>, depth = 0): unknown {
  if (depth > 100 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((entry) => resolveBindings(entry, state, depth + 1));
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1 && keys[0] === '$state' && typeof record.$state === 'string')
    return Object.hasOwn(state, record.$state) ? state[record.$state] : undefined;
  return Object.fromEntries(keys.map((key) => [key, resolveBindings(record[key], state, depth + 1)]));
}

/** At most this many distinct actions are pressed per rendered component. */
const MAX_ACTIONS = 6;

/** Every action object (`{ action: "…" }`) in a ContentKit tree, in document order, each once. */
export function actionsIn(element: unknown): Record<string, unknown>[] {
  const found = new Map<string, Record<string, unknown>>();
  const walk = (value: unknown, depth: number) => {
    if (depth > 100 || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) return value.forEach((entry) => walk(entry, depth + 1));
    const record = value as Record<string, unknown>;
    if (typeof record.action === 'string') found.set(JSON.stringify(record), record);
    for (const [key, entry] of Object.entries(record)) if (key !== 'action') walk(entry, depth + 1);
  };
  walk(element, 0);
  return [...found.values()];
}

interface Rendered {
  type?: string;
  element?: unknown;
  props?: Record<string, unknown>;
  state?: Record<string, unknown>;
}

async function render(
  client: HostClient,
  target: RenderTarget,
  body: Record<string, unknown>,
  what: string,
  steps: Step[],
): Promise<Rendered | undefined> {
  const answer = await client.admin('POST', `/v1/installations/${target.installationId}/render`, {
    context: target.context,
    ...body,
  });
  steps.push(stepOf(what, answer));
  return answer.status === 200 ? (answer.json as Rendered) : undefined;
}

/** Renders `target` and presses its actions; returns how many actions were pressed. */
export async function exerciseComponent(
  client: HostClient,
  mock: MockThirdParty,
  target: RenderTarget,
  placeholders: PlaceholderContext,
  steps: Step[],
): Promise<number> {
  const first = await render(
    client,
    target,
    {
      componentId: target.componentId,
      props: target.props,
      ...(target.firstAction ? { action: target.firstAction } : {}),
    },
    `render ${target.label}${target.firstAction ? ` (${String(target.firstAction.action)})` : ''}`,
    steps,
  );
  if (first?.type !== 'element') return 0;
  let pressed = 0;
  const state = filledState(first.element, first.state ?? {}, placeholders);
  for (const action of actionsIn(first.element)) {
    if (pressed >= MAX_ACTIONS) break;
    const name = String(action.action);
    if (name === '@ui.modal.open' && typeof action.componentId === 'string') {
      pressed++;
      const props =
        typeof action.props === 'object' && action.props !== null ? (action.props as Record<string, unknown>) : {};
      await render(
        client,
        target,
        { componentId: action.componentId, props },
        `open modal ${action.componentId} of ${target.label}`,
        steps,
      );
    } else if (name === '@ui.url.open' && typeof action.url === 'string' && action.url.startsWith(`${client.url}/`)) {
      pressed++;
      const what = `open ${new URL(action.url).pathname.split('/').slice(-1)[0] || 'link'} from ${target.label}`;
      const { status, requests } = await browse(client, mock, action.url, what, steps);
      steps.push({ what: `${what} (${requests} request(s))`, status });
    } else if (!name.startsWith('@')) {
      pressed++;
      await render(
        client,
        target,
        {
          componentId: target.componentId,
          props: first.props ?? target.props,
          state,
          action: resolveBindings(action, state),
        },
        `press ${name} in ${target.label}`,
        steps,
      );
    }
  }
  return pressed;
}
