// What integration code imports as 'sandbox-api': createIntegration, createComponent, ExposableError
// and the authoring types. Provided to every bundle by the runtime (runtime/provided.ts; in its snapshot,
// frozen): self-contained, type-only imports of the runtime (nothing here may close over a bridge), the
// isolate's globals only; it talks to the runtime through Symbol.for('sandbox-api.integration').
import type { Envelope } from './runtime/contract.ts';
import { createApiClient } from './api-client.ts';
import type {
  ComponentAction,
  ComponentDefinition,
  ComponentElement,
  Integration,
  IntegrationContext,
  IntegrationDefinition,
  IntegrationEnvironment,
} from './types.ts';

export { ApiError, createApiClient } from './api-client.ts';
export { createOAuthHandler } from './oauth.ts';
export type { OAuthConfig, OAuthConfigSource, OAuthCredentials } from './oauth.ts';
export type { ApiClient } from './api-client.ts';
export type * from './api-types.ts';
export type * from './types.ts';

export type {
  ContentKitAction,
  ContentKitBlockControl,
  ContentKitChild,
  ContentKitConfirm,
  ContentKitDynamicBinding,
  ContentKitElement,
  ContentKitElementProps,
  ContentKitIcon,
  ContentKitNode,
  ContentKitSelectOption,
  ContentKitTag,
  ContentKitURL,
  PlainObject,
} from './contentkit/elements.ts';

const INTEGRATION_PROTOCOL = Symbol.for('sandbox-api.integration');
const EXPOSABLE_BRAND = Symbol.for('sandbox-api.exposable-error');
const VERDICT_HEADER = 'x-sandbox-verdict'; // RUNTIME_VERDICT_HEADER of runtime/contract.ts

/** What the runtime hands the protocol method with each envelope. */
interface RuntimeHost {
  waitUntil(promise: unknown): void;
  Response: typeof Response;
  Request?: typeof Request;
  /** The runtime's error report (`prefix` and the frames V8 captured); absent: the console's. */
  reportError?(prefix: string, error: unknown): void;
}

/** An error whose message and status are meant for the caller: answered as `{ "error": message }`. */
export class ExposableError extends Error {
  readonly status: number;

  constructor(message: string, status: number = 400) {
    super(message);
    this.name = 'ExposableError';
    this.status = status;
  }
}
// A brand rather than instanceof: another bundled copy of this module must be recognized too.
Object.defineProperty(ExposableError.prototype, EXPOSABLE_BRAND, { value: true });

function isExposable(error: unknown): error is { message: unknown; status: unknown } {
  try {
    return error !== null && typeof error === 'object' && (error as Record<symbol, unknown>)[EXPOSABLE_BRAND] === true;
  } catch {
    return false;
  }
}

export function createComponent<Props = Record<string, unknown>, State = Record<string, unknown>>(
  definition: ComponentDefinition<Props, State>,
): ComponentDefinition<Props, State> {
  if (definition === null || typeof definition !== 'object')
    throw new TypeError('createComponent() needs a definition object');
  if (typeof definition.componentId !== 'string' || definition.componentId === '') {
    throw new TypeError('createComponent(): componentId must be a non-empty string');
  }
  if (typeof definition.render !== 'function')
    throw new TypeError(`createComponent("${definition.componentId}"): render must be a function`);
  for (const key of ['initialState', 'action'] as const) {
    if (definition[key] !== undefined && typeof definition[key] !== 'function') {
      throw new TypeError(`createComponent("${definition.componentId}"): ${key} must be a function`);
    }
  }
  return { ...definition };
}

function jsonResponse(host: RuntimeHost, status: number, body: unknown, verdict?: string): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (verdict !== undefined) headers[VERDICT_HEADER] = verdict;
  return new host.Response(JSON.stringify(body), { status, headers });
}

function noHandler(host: RuntimeHost, type: string): Response {
  return jsonResponse(host, 406, { error: `No handler for event "${type}"` }, 'no-handler');
}

function errorResponse(host: RuntimeHost, type: string, error: unknown): Response {
  if (isExposable(error)) {
    const status = Number(error.status);
    const valid = Number.isInteger(status) && status >= 200 && status <= 599;
    return jsonResponse(host, valid ? status : 400, { error: String(error.message) });
  }
  const prefix = `Unhandled error while handling "${type}":`;
  if (typeof host.reportError === 'function') host.reportError(prefix, error);
  else console.error(prefix, error);
  return jsonResponse(host, 500, { error: 'Internal server error' }, 'guest-error');
}

function handleFetch(
  definition: IntegrationDefinition,
  envelope: Envelope,
  host: RuntimeHost,
  context: IntegrationContext,
) {
  if (definition.fetch === undefined) return noHandler(host, 'fetch');
  const incoming = envelope.event.request;
  if (incoming === undefined) throw new TypeError('fetch event without a request');
  const RequestClass = host.Request ?? Request;
  const method = String(incoming.method);
  const upper = method.toUpperCase();
  const body = (upper === 'GET' || upper === 'HEAD' ? null : envelope.fetchBody) as Uint8Array<ArrayBuffer> | null;
  const request = new RequestClass(incoming.url, { method, headers: incoming.headers, body });
  return definition.fetch(request, context);
}

async function handleRender(
  components: Map<string, ComponentDefinition>,
  envelope: Envelope,
  host: RuntimeHost,
  context: IntegrationContext,
) {
  const event = envelope.event;
  const componentId = String(event.componentId);
  const component = components.get(componentId);
  if (component === undefined) {
    return jsonResponse(host, 404, { error: `Unknown component "${componentId}"` }, 'component-not-found');
  }
  const props = (event.props ?? {}) as Record<string, unknown>;
  const initial =
    event.state ??
    (typeof component.initialState === 'function' ? component.initialState(props) : component.initialState);
  let state = (initial ?? {}) as Record<string, unknown>;
  const element: ComponentElement = { componentId, props, state, context: event.context };
  if (event.action !== undefined && event.action !== null && component.action !== undefined) {
    const result: unknown = await component.action(element, event.action as ComponentAction, context);
    if (result !== null && typeof result === 'object') {
      if ('returnValue' in result)
        return jsonResponse(host, 200, { type: 'complete', returnValue: result.returnValue });
      if ('state' in result && result.state !== undefined) state = result.state as Record<string, unknown>;
    }
  }
  const rendered = await component.render({ ...element, state }, context);
  return jsonResponse(host, 200, { type: 'element', element: rendered, state, props });
}

async function handleEvent(
  definition: IntegrationDefinition,
  envelope: Envelope,
  host: RuntimeHost,
  context: IntegrationContext,
) {
  const type = envelope.event.type;
  const events = definition.events;
  const handler = events !== undefined && Object.hasOwn(events, type) ? events[type] : undefined;
  if (typeof handler !== 'function') return noHandler(host, type);
  const result = await handler(envelope.event, context);
  return result instanceof host.Response ? result : jsonResponse(host, 200, {});
}

export function createIntegration(definition: IntegrationDefinition): Integration {
  if (definition === null || typeof definition !== 'object')
    throw new TypeError('createIntegration() needs a definition object');
  if (definition.fetch !== undefined && typeof definition.fetch !== 'function')
    throw new TypeError('createIntegration(): fetch must be a function');
  const components = new Map<string, ComponentDefinition>();
  for (const component of definition.components ?? []) {
    const checked = createComponent(component);
    if (components.has(checked.componentId))
      throw new TypeError(`createIntegration(): duplicate componentId "${checked.componentId}"`);
    components.set(checked.componentId, checked);
  }
  for (const [type, handler] of Object.entries(definition.events ?? {})) {
    if (typeof handler !== 'function')
      throw new TypeError(`createIntegration(): the handler for event "${type}" must be a function`);
  }
  const definitionCopy: IntegrationDefinition = { fetch: definition.fetch, events: { ...definition.events } };

  async function handle(envelope: Envelope, host: RuntimeHost): Promise<Response> {
    const type = String(envelope.event.type);
    const environment = (envelope.environment ?? {}) as IntegrationEnvironment;
    const context: IntegrationContext = {
      environment,
      waitUntil: (promise) => host.waitUntil(promise),
      api: createApiClient(environment),
    };
    try {
      if (type === 'fetch') return await handleFetch(definitionCopy, envelope, host, context);
      if (type === 'ui_render') return await handleRender(components, envelope, host, context);
      return await handleEvent(definitionCopy, envelope, host, context);
    } catch (error) {
      return errorResponse(host, type, error);
    }
  }

  const integration: Integration = {
    components: Object.freeze([...components.keys()]),
    events: Object.freeze(Object.keys(definitionCopy.events ?? {})),
    handlesFetch: definition.fetch !== undefined,
  };
  Object.defineProperty(integration, INTEGRATION_PROTOCOL, { value: handle });
  return Object.freeze(integration);
}
