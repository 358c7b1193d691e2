// The startup table of `npm run host` / `npm run dev`: one block per integration with its status
// and every installation (public endpoint, target, status), or its problems. Formatting only: it
// reads the host through its public services and never decides anything.

import type { Host } from '../index.ts';
import type { InstallationView } from '../installations/model.ts';
import { formatProblem, formatWarning, problemFrame } from '../manifest/format.ts';
import type { ManifestProblem } from '../manifest/types.ts';

/** Installations shown per integration; the rest are one GET /v1/installations away. */
export const TABLE_INSTALLATIONS_PER_INTEGRATION = 20;

export function describeTarget(installation: InstallationView): string {
  const where =
    installation.target === 'space'
      ? `space ${installation.space}`
      : installation.target === 'site'
        ? `site ${installation.site}`
        : `organization ${installation.organization}`;
  return `${where}, ${installation.status}`;
}

export async function startupRows(host: Host): Promise<string[][]> {
  const rows: string[][] = [['integration', 'status', 'public endpoint / problems']];
  for (const integration of host.integrations) {
    if (integration.status === 'invalid') {
      integration.errors.forEach((problem, index) => {
        rows.push([index === 0 ? integration.name : '', index === 0 ? 'invalid' : '', formatProblem(problem)]);
        for (const line of problemFrame(problem)) rows.push(['', '', line]);
      });
      // The warnings too, as check prints them: an unknown key often explains a missing one.
      warningRows(rows, integration.warnings);
      continue;
    }
    const page = await host.services.listInstallations({
      integration: integration.name,
      limit: TABLE_INSTALLATIONS_PER_INTEGRATION,
    });
    const cells = page.items.map((installation) =>
      integration.builtin
        ? `${installation.id}  (${describeTarget(installation)}; built in)`
        : `${installation.urls.publicEndpoint}  (${describeTarget(installation)})`,
    );
    if (page.nextCursor !== null) cells.push(`… more: GET /v1/installations?integration=${integration.name}`);
    if (cells.length === 0) {
      const dev = host.devInstallations.find((entry) => entry.integration === integration.name);
      cells.push(
        integration.builtin
          ? `(built in; install it on a ${integration.builtin.targets.join(' or ')})`
          : (dev?.note ?? (integration.bundle ? '(not installed)' : '(no script)')),
      );
    }
    cells.forEach((cell, index) => rows.push([index === 0 ? integration.name : '', index === 0 ? 'ready' : '', cell]));
    warningRows(rows, integration.warnings);
    for (const problem of integration.reloadErrors ?? []) {
      rows.push(['', 'failed', `${formatProblem(problem)} (still serving the last good build)`]);
      for (const line of problemFrame(problem)) rows.push(['', '', line]);
    }
  }
  return rows;
}

function warningRows(rows: string[][], warnings: readonly ManifestProblem[]): void {
  for (const warning of warnings) {
    rows.push(['', 'warning', formatWarning(warning)]);
    for (const line of problemFrame(warning)) rows.push(['', '', line]);
  }
}

export function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map(
      (row) =>
        `${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')}\n`,
    )
    .join('');
}
