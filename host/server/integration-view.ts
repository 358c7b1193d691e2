// The public JSON of a loaded integration (docs/http-api.md). Pure; must never include secrets, the
// bundle, or the folder on disk, only what an operator needs to see.

import { formatLocated } from '../common/code-frame.ts';
import type { LoadedIntegration, ManifestProblem } from '../manifest/types.ts';

export function formatProblem(problem: ManifestProblem): string {
  if (problem.at !== undefined) return formatLocated(problem.file, problem.at, 'error', problem.message);
  return problem.pointer
    ? `${problem.file}: ${problem.pointer}: ${problem.message}`
    : `${problem.file}: ${problem.message}`;
}

/** Drops undefined fields so invalid integrations list only what could be read. */
function compact(view: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(view).filter(([, value]) => value !== undefined));
}

export function summarizeIntegration(integration: LoadedIntegration): Record<string, unknown> {
  const manifest = integration.manifest;
  return compact({
    name: integration.name,
    title: manifest?.title,
    description: manifest?.description,
    visibility: manifest?.visibility,
    scopes: manifest?.scopes,
    blocks: manifest ? (manifest.blocks ?? []) : undefined,
    categories: manifest ? (manifest.categories ?? []) : undefined,
    status: integration.status,
    errors: integration.errors.length > 0 ? integration.errors.map(formatProblem) : undefined,
    warnings: integration.warnings.length > 0 ? integration.warnings.map(formatProblem) : undefined,
    // Under `npm run dev`: the newest files failed to load; `status` is that of the build still serving.
    reloadErrors:
      integration.reloadErrors && integration.reloadErrors.length > 0
        ? integration.reloadErrors.map(formatProblem)
        : undefined,
    published: integration.published,
  });
}

/** `installLink`: what an unlisted integration's installers must send (visibility, docs/manifest.md). */
export function describeIntegration(
  integration: LoadedIntegration,
  access: { installLink?: string } = {},
): Record<string, unknown> {
  const manifest = integration.manifest;
  return compact({
    ...summarizeIntegration(integration),
    installLink: access.installLink,
    organization: manifest?.organization,
    summary: manifest?.summary,
    externalLinks: manifest ? (manifest.externalLinks ?? []) : undefined,
    configurations: manifest ? (manifest.configurations ?? {}) : undefined,
  });
}
