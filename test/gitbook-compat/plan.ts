// What to exercise in one GitBook integration, read from its manifest and sources as a user reads
// the listing: where it installs, what to configure, its blocks and configuration components, its
// site script, the platform events it may handle. Reads files; decides nothing about outcomes.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import { hostsIn, secretVariables, unfurlLink, type ConfigurationSchema } from './placeholders.ts';

export type Level = { componentId: string } | { schema: ConfigurationSchema };
export type InstallTarget = 'space' | 'site';

export interface ExercisePlan {
  name: string;
  folder: string;
  /** The manifest's `target` (GitBook's default is `all`). */
  target: string;
  /** The space and site installations to make (the organization installation comes with them, or alone). */
  installs: InstallTarget[];
  configurations: Partial<Record<'account' | 'space' | 'site', Level>>;
  blocks: { id: string; link?: string }[];
  siteScript: boolean;
  visitorAuth: boolean;
  /** Platform events (POST /v1/events) to fire, by type. */
  events: string[];
  /** Environment variables its secrets read. */
  secretVariables: string[];
  scopes: string[];
  /** Whether its code hands out its own endpoint (`integration.urls.publicEndpoint`: an OAuth redirect, a webhook). */
  usesIntegrationEndpoint: boolean;
  /** Host names its sources write in URLs. */
  hosts: string[];
  /** Its package.json's `build` script, when it has one (its generated modules come from it). */
  build?: string;
}

const SPACE_EVENTS = [
  'space_content_updated',
  'space_view',
  'space_visibility_updated',
  'space_gitsync_started',
  'space_gitsync_completed',
];
const SITE_EVENTS = ['site_view', 'page_feedback'];
const SCOPES_OF: Record<string, string[]> = {
  site_view: ['site:views:read'],
  page_feedback: ['site:views:read', 'page:feedback:read'],
};
const SPACE_EVENT_SCOPES = ['space:content:read', 'space:metadata:read'];

function sourceText(folder: string): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (name === 'node_modules') continue;
      if (statSync(file).isDirectory()) walk(file);
      else if (/\.(m?[jt]sx?)$/.test(name)) texts.push(readFileSync(file, 'utf8'));
    }
  };
  const src = path.join(folder, 'src');
  if (existsSync(src)) walk(src);
  return texts.join('\n');
}

function level(value: unknown): Level | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.componentId === 'string') return { componentId: record.componentId };
  return { schema: record as ConfigurationSchema };
}

/**
 * The events among `candidates` the sources name as handler keys (`site_view:`), or all of them when none is named
 * (computed keys).
 */
function handledEvents(source: string, candidates: string[]): string[] {
  const named = candidates.filter((type) => new RegExp(`['"\`]?\\b${type}\\b['"\`]?\\s*:`).test(source));
  return named.length > 0 ? named : candidates;
}

export function planExercise(folder: string): ExercisePlan {
  const manifest = load(readFileSync(path.join(folder, 'gitbook-manifest.yaml'), 'utf8'), {
    schema: CORE_SCHEMA,
  }) as Record<string, unknown>;
  const name = typeof manifest.name === 'string' ? manifest.name : path.basename(folder);
  const target = typeof manifest.target === 'string' ? manifest.target : 'all';
  const installs: InstallTarget[] =
    target === 'space' ? ['space'] : target === 'site' ? ['site'] : target === 'all' ? ['space', 'site'] : [];
  const configurations = (manifest.configurations ?? {}) as Record<string, unknown>;
  const scopes = Array.isArray(manifest.scopes) ? manifest.scopes.map(String) : [];
  const source = sourceText(folder);
  const candidates = [
    ...(installs.includes('space') && scopes.some((scope) => SPACE_EVENT_SCOPES.includes(scope)) ? SPACE_EVENTS : []),
    ...(installs.includes('site')
      ? SITE_EVENTS.filter((type) => scopes.some((scope) => SCOPES_OF[type].includes(scope)))
      : []),
  ];
  const categories = Array.isArray(manifest.categories) ? manifest.categories.map(String) : [];
  const blocks = (Array.isArray(manifest.blocks) ? manifest.blocks : []) as { id?: unknown; urlUnfurl?: unknown }[];
  const packageFile = path.join(folder, 'package.json');
  const build = existsSync(packageFile)
    ? (JSON.parse(readFileSync(packageFile, 'utf8')) as { scripts?: Record<string, string> }).scripts?.build
    : undefined;
  const plan: ExercisePlan = {
    name,
    folder,
    target,
    installs,
    configurations: {},
    blocks: blocks
      .filter((block) => typeof block.id === 'string')
      .map((block) => {
        const patterns = Array.isArray(block.urlUnfurl)
          ? block.urlUnfurl.filter((entry): entry is string => typeof entry === 'string')
          : [];
        return patterns.length > 0 ? { id: String(block.id), link: unfurlLink(patterns[0]) } : { id: String(block.id) };
      }),
    siteScript: installs.includes('site') && scopes.includes('site:script:inject'),
    visitorAuth:
      installs.includes('site') &&
      (categories.includes('visitor-auth') || /\bfetch_visitor_authentication\s*[:(]/.test(source)),
    events: handledEvents(source, candidates),
    secretVariables: secretVariables(manifest.secrets),
    scopes,
    usesIntegrationEndpoint: /\bintegration\??\.urls\??\.publicEndpoint\b/.test(source),
    hosts: hostsIn(source),
    ...(typeof build === 'string' ? { build } : {}),
  };
  for (const key of ['account', 'space', 'site'] as const) {
    const found = level(configurations[key]);
    if (found !== undefined) plan.configurations[key] = found;
  }
  return plan;
}

/** The integration folders of a `--dir` root (those holding gitbook-manifest.yaml), sorted by name. */
export function integrationFolders(root: string): string[] {
  return readdirSync(root)
    .sort()
    .map((name) => path.resolve(root, name))
    .filter((folder) => existsSync(path.join(folder, 'gitbook-manifest.yaml')));
}
