// Types of a loaded integration: the validated manifest, where it lives, its bundle, and every
// problem found while loading it. Pure data; no I/O here.

import type { SourcePosition } from '../common/code-frame.ts';

export const SCOPES = [
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'page:feedback:read',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'openapi:read',
  'openapi:write',
  'conversations:ingest',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Internal scopes: only for organizations listed as first-party in the platform data (issue 3). */
export const INTERNAL_SCOPES: readonly Scope[] = ['site:script:inject', 'site:script:cookies'];

/** `visitor-auth` is GitBook's name for what this platform calls `authenticated-access`; both are accepted. */
export const CATEGORIES = [
  'analytics',
  'collaboration',
  'content',
  'marketing',
  'authenticated-access',
  'visitor-auth',
  'other',
] as const;
export const VISIBILITIES = ['private', 'unlisted', 'public'] as const;
export const TARGETS = ['all', 'organization', 'space', 'site'] as const;

/** The two manifest file names a folder may hold (one of them, never both). */
export const MANIFEST_FILES = { platform: 'platform-manifest.yaml', gitbook: 'gitbook-manifest.yaml' } as const;
export type ManifestKind = keyof typeof MANIFEST_FILES;

export type ConfigProperty =
  | { type: 'string'; title: string; description: string; default?: string; enum?: string[]; completion_url?: string }
  | { type: 'number'; title: string; description: string; default?: number }
  | { type: 'boolean'; title: string; description: string; default?: boolean }
  | { type: 'button'; title: string; description: string; button_text: string; callback_url: string };

export interface ConfigurationSchema {
  properties: Record<string, ConfigProperty>;
  required?: string[];
}

/** A configuration level rendered by one of the integration's components (GitBook's form; not acted on here). */
export interface ConfigurationComponent {
  componentId: string;
}

export interface ManifestBlock {
  id: string;
  title: string;
  description?: string;
  icon?: string;
  /** URL patterns the block unfurls (a platform editor feature; accepted, not acted on). */
  urlUnfurl?: string[];
  /** Markdown code block conversion (a platform editor feature; accepted, not acted on). */
  markdown?: { codeblock: string; body: string };
}

export interface Manifest {
  name: string;
  title: string;
  description: string;
  summary?: string;
  organization: string;
  visibility: (typeof VISIBILITIES)[number];
  scopes: Scope[];
  script?: string;
  target?: (typeof TARGETS)[number];
  blocks?: ManifestBlock[];
  categories?: (typeof CATEGORIES)[number][];
  icon?: string;
  previewImages?: string[];
  externalLinks?: { label: string; url: string }[];
  configurations?: {
    account?: ConfigurationSchema | ConfigurationComponent;
    space?: ConfigurationSchema | ConfigurationComponent;
    site?: ConfigurationSchema | ConfigurationComponent;
  };
  contentSecurityPolicy?: string | Record<string, string>;
  /** As written in the file (`${{ env.NAME }}` templates); resolved values live in LoadedIntegration.secrets. */
  secrets?: Record<string, string>;
}

/**
 * One problem, printed as `file: /json/pointer: message`, or, when it has a place in the file
 * (`at`: a YAML syntax error, a build error in a script), as `file:line:col: error: message` with
 * a code frame (common/code-frame.ts). A script's build error names the script as `file` and
 * keeps `/script` as its pointer.
 */
export interface ManifestProblem {
  file: string;
  pointer: string;
  message: string;
  at?: SourcePosition;
}

export interface IntegrationBundle {
  /** One classic script (IIFE) whose completion value is the module namespace of the entry. */
  code: string;
  /** sha256 hex of the inputs; the build cache key. */
  hash: string;
  /** True when served from the bundle cache without running esbuild. */
  cached?: boolean;
  /**
   * Source map of `code` (JSON), sources named relative to the integration folder: the worker maps
   * guest stack traces with it. Absent for bundles made without one (tests).
   */
  map?: string;
  /** Absolute paths of every file the build read (what `npm run dev` watches); never shown. */
  inputs?: string[];
}

/**
 * Behaviour of a built-in integration that runs as trusted host code instead of in a sandbox
 * (the `webhook` integration): its own targets and configuration rules, and install hooks.
 */
export interface BuiltinBehaviour {
  targets: readonly ('organization' | 'space' | 'site')[];
  /** Problems with a merged configuration for a target; any problem makes the edit a 422. */
  checkConfiguration(configuration: Record<string, unknown>, target: string): { pointer: string; message: string }[];
  /** Whether a configuration that passed the check makes the installation active. */
  isComplete(configuration: Record<string, unknown>): boolean;
  /** Runs once at installation; what it returns is added to the 201 response only (shown once). */
  onInstall?(installationId: string): Promise<Record<string, unknown>>;
  onUninstall?(installationId: string): Promise<void>;
}

export interface LoadedIntegration {
  /** The manifest name when readable, else the folder name. */
  name: string;
  dir: string;
  manifestPath: string;
  /** Which file the manifest came from; a `gitbook` manifest's JSX compiles with `@gitbook/runtime`. */
  manifestKind?: ManifestKind;
  status: 'ready' | 'invalid';
  manifest?: Manifest;
  /** Secret values filled from the environment at load; never logged, never listed. */
  secrets: Record<string, string>;
  bundle?: IntegrationBundle;
  errors: ManifestProblem[];
  warnings: ManifestProblem[];
  /** Each manifest secret's variable and where its value comes from (names only, never a value). */
  secretSources?: Record<string, { variable?: string; source: 'store' | 'environment' | 'manifest' | 'missing' }>;
  /** Variables filled in from the folder's `.dev.vars` for its secrets (names only). */
  devVars?: { file: string; variables: string[] };
  /**
   * Set by the dev loop (`npm run dev`) when the newest files of a ready integration failed to
   * load: these are their problems, and the integration keeps serving its last good build.
   */
  reloadErrors?: ManifestProblem[];
  /** Set for built-in integrations (trusted host code, no bundle). */
  builtin?: BuiltinBehaviour;
  /** Set for an integration served from the store (host/publish/): the version serving, and its origin. */
  published?: PublishedOrigin;
}

/** Which published version an integration serves (host/publish/model.ts has the whole record). */
export interface PublishedOrigin {
  version: number;
  contentHash: string;
  publishedBy: string;
  publishedAt: string;
}
