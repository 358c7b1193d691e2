// Placeholder values a user would type, derived from what the manifest says: a configuration's
// required properties from its schema, secret variables from their names, a link a block unfurls
// from its pattern. URLs point at the loopback mock. Pure, except one RSA key made per run.

import { generateKeyPairSync } from 'node:crypto';

export interface PropertySchema {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  minLength?: number;
}

export interface ConfigurationSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

/** Where placeholder URLs point: `originFor(host)` is the mock's origin for that name. */
export interface PlaceholderContext {
  integration: string;
  originFor(host: string): string;
}

/** The placeholder host of an integration: resolved to the mock like every third party. */
export const placeholderHost = (integration: string): string =>
  `${integration.toLowerCase().replace(/[^a-z0-9-]/g, '-')}.mock.test`;

const URL_NAME = /(^|_)(url|uri|endpoint|address)$|url|endpoint/i;
const HOST_NAME = /(^|_)(host|hostname|domain)$/i;

function candidates(name: string, context: PlaceholderContext): string[] {
  const base = `${context.originFor(placeholderHost(context.integration))}/${name.toLowerCase()}`;
  return [
    `placeholder-${name.toLowerCase().replace(/_/g, '-')}`,
    base,
    placeholderHost(context.integration),
    'PLACEHOLDER1',
    '12345',
    'placeholder',
  ];
}

/** A value for one property that its schema accepts, or undefined for a button (its flow sets it). */
export function placeholderFor(name: string, schema: PropertySchema, context: PlaceholderContext): unknown {
  if (schema.type === 'button') return undefined;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'number':
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default: {
      const [plain, url, host] = candidates(name, context);
      if (schema.format === 'uri' || schema.format === 'url' || URL_NAME.test(name)) return url;
      if (HOST_NAME.test(name)) return host;
      if (schema.pattern !== undefined) {
        let pattern: RegExp | null = null;
        try {
          pattern = new RegExp(schema.pattern, 'u');
        } catch {
          pattern = null;
        }
        const fitting = candidates(name, context).find((candidate) => pattern?.test(candidate));
        if (fitting !== undefined) return fitting;
      }
      return plain.length >= (schema.minLength ?? 0) ? plain : plain.padEnd(schema.minLength ?? 0, 'x');
    }
  }
}

/** The required properties of a configuration schema, filled; buttons left to their flows. */
export function placeholderConfiguration(
  schema: ConfigurationSchema,
  context: PlaceholderContext,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const property = schema.properties?.[name];
    if (property === undefined) continue;
    const value = placeholderFor(name, property, context);
    if (value !== undefined) values[name] = value;
  }
  return values;
}

/** The environment variables `${{ env.NAME }}` references of a manifest's `secrets` read. */
export function secretVariables(secrets: unknown): string[] {
  if (typeof secrets !== 'object' || secrets === null) return [];
  const names = new Set<string>();
  for (const value of Object.values(secrets)) {
    if (typeof value !== 'string') continue;
    for (const match of value.matchAll(/\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)) names.add(match[1]);
  }
  return [...names].sort();
}

let privateKey: string | undefined;

/** A placeholder for a secret variable: a real RSA key for a private key, a mock URL for a URL, else text. */
export function placeholderSecret(variable: string, context: PlaceholderContext): string {
  if (/PRIVATE_KEY|_PEM$/.test(variable)) {
    privateKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    return privateKey;
  }
  if (/(URL|URI|ENDPOINT)$/.test(variable))
    return `${context.originFor(placeholderHost(context.integration))}/${variable.toLowerCase()}`;
  return `placeholder-${variable.toLowerCase().replace(/_/g, '-')}`;
}

/** A link matching a block's `urlUnfurl` pattern (`*` one segment or label, `**` any path). */
export function unfurlLink(pattern: string): string {
  return pattern
    .replace(/\*\*/g, 'PLACEHOLDER-1/placeholder')
    .replace(/([^/.])\*$/, '$1?id=placeholder')
    .replace(/\*/g, 'placeholder');
}

/** The host names written as `http(s)://name` in source text (the third parties an integration calls). */
export function hostsIn(source: string): string[] {
  const hosts = new Set<string>();
  for (const match of source.matchAll(
    /https?:\/\/([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)(?=[/:'"`?#\s)]|$)/gi,
  )) {
    const host = match[1].toLowerCase();
    if (!/^[\d.]+$/.test(host) && !host.endsWith('.')) hosts.add(host);
  }
  return [...hosts].sort();
}
