// The JSON the console reads from the host's documented HTTP API (docs/http-api.md). Written
// from the documentation, not imported from host/: the console is a client like curl, and every
// value in these shapes is untrusted text until a view puts it on screen as text.

/** The namespace of the host's built-in integrations (no manifest name holds a colon). */
export const BUILTIN_PREFIX = 'host:';
/**
 * The host's built-in webhook integration (docs/webhooks.md). Built-ins are named `host:…`, which
 * no manifest name can be, so an author's integration called `webhook` is never mistaken for it.
 */
export const BUILTIN_WEBHOOK = 'host:webhook';

export interface ErrorDetail {
  pointer?: string;
  message: string;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[] };
}

export interface Block {
  id: string;
  title: string;
  description: string;
}

export type ConfigProperty =
  | { type: 'string'; title: string; description: string; default?: string; enum?: string[]; completion_url?: string }
  | { type: 'number'; title: string; description: string; default?: number }
  | { type: 'boolean'; title: string; description: string; default?: boolean }
  | { type: 'button'; title: string; description: string; button_text: string; callback_url: string };

export interface ConfigurationSchema {
  properties: Record<string, ConfigProperty>;
  required?: string[];
}

export type ConfigurationLevel = ConfigurationSchema | { componentId: string };

export interface IntegrationSummary {
  name: string;
  title?: string;
  description?: string;
  visibility?: 'private' | 'unlisted' | 'public';
  scopes?: string[];
  blocks?: Block[];
  categories?: string[];
  status: 'ready' | 'invalid';
  /** `file: /json/pointer: message` each. */
  errors?: string[];
  warnings?: string[];
  /** Served from the store: the published version this host serves (docs/operations.md#publishing). */
  published?: { version: number; contentHash: string; publishedBy: string; publishedAt: string };
}

export interface IntegrationDetail extends IntegrationSummary {
  installLink?: string;
  organization?: string;
  summary?: string;
  externalLinks?: { label: string; url: string }[];
  /** Per level; GitBook's component form (`{ componentId }`) has no property schema to show. */
  configurations?: { account?: ConfigurationLevel; space?: ConfigurationLevel; site?: ConfigurationLevel };
}

export type Target = 'organization' | 'space' | 'site';

export interface Installation {
  id: string;
  integration: string;
  organization: string;
  target: Target;
  space?: string;
  site?: string;
  space_selection?: 'all' | string[];
  status: 'pending' | 'active' | 'paused' | string;
  configuration: Record<string, unknown>;
  createdAt: string;
  urls: { publicEndpoint: string; buttons: Record<string, string> };
  /** Only in the answer that created a webhook installation. */
  signingSecret?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface EventEntry {
  eventId: string;
  integration: string;
  installationId: string;
  type: string;
  status: number;
  errorCode?: string;
  durationMs: number;
  logs: { level: string; text: string }[];
  createdAt: string;
  requestId?: string;
  /** The published version that served it; absent for an integration loaded from a folder. */
  version?: number;
}

export interface Attempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: { kind: string; message: string } | null;
  nextAttemptAt: string | null;
}

export interface Delivery {
  id: string;
  installationId: string;
  eventId: string;
  eventType: string;
  url: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  redeliveryOf: string | null;
  payload: unknown;
  attempts: Attempt[];
}

export type RenderAnswer =
  | { type: 'element'; element: unknown; state: Record<string, unknown>; props: Record<string, unknown> }
  | { type: 'complete'; returnValue?: unknown };

export interface SessionInfo {
  csrfToken: string;
  expiresAt: string;
}

/** A secret stored for an integration: never its value (the host has no route that returns one). */
export interface StoredSecret {
  name: string;
  setAt: string;
  setBy: 'cli' | 'api' | 'console' | string;
  keyId: number;
  readable: boolean;
  problem?: string;
  usedBy: string[];
}

export interface IntegrationSecrets {
  integration: string;
  status: 'ready' | 'invalid';
  key: { configured: boolean; current?: number };
  items: StoredSecret[];
  manifest: {
    secret: string;
    variable?: string;
    source: 'store' | 'environment' | 'manifest' | 'missing' | string;
    command?: string;
  }[];
}

/** A published version, without its contents (GET /v1/integrations/:name/versions). */
export interface VersionSummary {
  integration: string;
  version: number;
  organization: string;
  contentHash: string;
  bundleHash: string;
  files: number;
  bytes: number;
  publishedBy: string;
  publishedAt: string;
  current: boolean;
}
