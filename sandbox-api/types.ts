// The authoring types of sandbox-api: the context, environment and event an integration receives,
// and the shapes of createIntegration() and createComponent(). Types only.

import type { ContentKitElement } from './contentkit/elements.ts';
import type { ApiClient } from './api-client.ts';

/** `context.environment` (docs/authoring.md); the host builds it from its own records. */
export interface IntegrationEnvironment {
  apiEndpoint?: string;
  apiTokens?: { installation?: string; integration?: string };
  /**
   * GitBook's Integration object; `urls.publicEndpoint` is the dispatched installation's public endpoint (with no
   * installation: the integration's own).
   */
  integration?: {
    name?: string;
    urls?: { publicEndpoint?: string; publicContentEndpoint?: string };
    [field: string]: unknown;
  };
  /** GitBook's organization installation (for a space or site installation: the one it belongs to). */
  installation?: { id?: string; status?: string; configuration?: Record<string, unknown>; [field: string]: unknown };
  spaceInstallation?: {
    installation?: string;
    space?: string;
    status?: string;
    configuration?: Record<string, unknown>;
    [field: string]: unknown;
  };
  siteInstallation?: {
    installation?: string;
    site?: string;
    status?: string;
    configuration?: Record<string, unknown>;
    [field: string]: unknown;
  };
  secrets?: Record<string, string>;
  /**
   * The dispatched installation itself (absent on the integration's own endpoint): its id, status, configuration,
   * endpoint.
   */
  id?: string;
  target?: 'organization' | 'space' | 'site';
  status?: string;
  configuration?: Record<string, unknown>;
  urls?: { publicEndpoint?: string };
  [field: string]: unknown;
}

export interface IntegrationContext<Env extends IntegrationEnvironment = IntegrationEnvironment> {
  environment: Env;
  /** Keeps the integration alive after the response until `promise` settles (bounded by the host). */
  waitUntil(promise: Promise<unknown>): void;
  /** The platform API (docs/platform-api.md) with this installation's token; non-2xx answers throw ApiError. */
  api: ApiClient;
}

/** A platform event (docs/events.md): `type` plus its payload fields. */
export interface IntegrationEvent {
  eventId: string;
  type: string;
  installationId?: string;
  [field: string]: unknown;
}

export type FetchHandler = (request: Request, context: IntegrationContext) => Response | Promise<Response>;
export type EventHandler = (event: IntegrationEvent, context: IntegrationContext) => unknown;

/** What a user interaction sends to `action()`: `action.action` names it. */
export interface ComponentAction {
  action: string;
  [field: string]: unknown;
}

/** The element a component's action() and render() receive. */
export interface ComponentElement<Props = Record<string, unknown>, State = Record<string, unknown>> {
  componentId: string;
  props: Props;
  state: State;
  /** The UI context the platform sent with the render, if any. */
  context: unknown;
}

/** `{ state }` replaces the state, `{}` keeps it, `{ returnValue }` completes the interaction. */
export type ActionResult<State> = { state?: State; returnValue?: unknown } | undefined | void;

export interface ComponentDefinition<Props = Record<string, unknown>, State = Record<string, unknown>> {
  componentId: string;
  initialState?: (props: Props) => State;
  action?: (
    element: ComponentElement<Props, State>,
    action: ComponentAction,
    context: IntegrationContext,
  ) => ActionResult<State> | Promise<ActionResult<State>>;
  render: (
    element: ComponentElement<Props, State>,
    context: IntegrationContext,
  ) => ContentKitElement | Promise<ContentKitElement>;
}

export interface IntegrationDefinition {
  fetch?: FetchHandler;
  // Components are generic in their own props/state; any of them is accepted here.
  // biome-ignore lint/suspicious/noExplicitAny: unknown would reject components with typed props
  components?: ComponentDefinition<any, any>[];
  events?: Record<string, EventHandler>;
}

/** The value `export default` must be; the runtime recognizes it, nothing else reads it. */
export interface Integration {
  readonly components: readonly string[];
  readonly events: readonly string[];
  readonly handlesFetch: boolean;
}
