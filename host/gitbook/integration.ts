// GitBook's Integration object (spec schema `Integration`) for a loaded integration: what its
// environment carries as `integration`. Pure; built from the manifest and the host's URLs, never
// from anything a request said.

import path from 'node:path';
import type { LoadedIntegration } from '../manifest/types.ts';
import { integrationAssetsOf, integrationEndpointOf, integrationLocationOf } from '../installations/urls.ts';

/** GitBook's bounds on an integration's texts (IntegrationTitle, IntegrationDescription, IntegrationExternalLinks). */
const TITLE_MAX = 30;
const DESCRIPTION_MAX = 100;
const EXTERNAL_LINKS_MAX = 5;

/**
 * GitBook counts published versions of an integration; this host publishes nothing and runs the
 * folder as it is, so every integration reports version 1 (docs/gitbook.md).
 */
export const INTEGRATION_VERSION = 1;

/** The URL a file of the integration's `assets/` folder is served at, or undefined when it lies elsewhere. */
export function assetUrlOf(
  baseUrl: string,
  integration: LoadedIntegration,
  file: string | undefined,
): string | undefined {
  if (file === undefined) return undefined;
  const relative = path.posix.normalize(file.replaceAll('\\', '/')).replace(/^\.\//, '');
  if (!relative.startsWith('assets/') || relative.includes('..')) return undefined;
  const encoded = relative.slice('assets/'.length).split('/').map(encodeURIComponent).join('/');
  return `${integrationAssetsOf(baseUrl, integration.name)}/${encoded}`;
}

function isUri(value: string): boolean {
  try {
    return new URL(value).protocol.length > 0;
  } catch {
    return false;
  }
}

export function gitbookIntegration(
  baseUrl: string,
  integration: LoadedIntegration,
  owner: Record<string, unknown>,
): Record<string, unknown> {
  const manifest = integration.manifest;
  const publicEndpoint = integrationEndpointOf(baseUrl, integration.name);
  const location = integrationLocationOf(baseUrl, integration.name);
  const icon = assetUrlOf(baseUrl, integration, manifest?.icon);
  const title = manifest?.title ?? integration.name;
  return {
    object: 'integration',
    name: integration.name,
    version: INTEGRATION_VERSION,
    title: title.length > TITLE_MAX ? title.slice(0, TITLE_MAX) : title.padEnd(2, '_'),
    ...(manifest?.description !== undefined && manifest.description.length <= DESCRIPTION_MAX
      ? { description: manifest.description }
      : {}),
    ...(manifest?.summary !== undefined ? { summary: manifest.summary } : {}),
    scopes: manifest?.scopes ?? [],
    // `authenticated-access` is this platform's name for GitBook's `visitor-auth`.
    categories: [
      ...new Set(
        (manifest?.categories ?? []).map((category) =>
          category === 'authenticated-access' ? 'visitor-auth' : category,
        ),
      ),
    ],
    visibility: manifest?.visibility ?? 'private',
    target: manifest?.target ?? 'all',
    verified: false,
    previewImages: (manifest?.previewImages ?? []).flatMap((image) => assetUrlOf(baseUrl, integration, image) ?? []),
    externalLinks: (manifest?.externalLinks ?? []).filter((link) => isUri(link.url)).slice(0, EXTERNAL_LINKS_MAX),
    owner,
    permissions: { admin: false },
    urls: {
      location,
      app: location,
      assets: integrationAssetsOf(baseUrl, integration.name),
      publicEndpoint,
      // GitBook's spec: "equals publicEndpoint when no separate content origin is configured",
      // which this host never has; webframe pages (mermaid, plantuml) are served from it.
      publicContentEndpoint: publicEndpoint,
      ...(icon !== undefined ? { icon } : {}),
    },
  };
}
