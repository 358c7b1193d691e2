// The installations table's rows and the mapping from a row to an Installation (shared by both
// stores). Pure data and conversion; the two installation stores are its only users.

import type { Installation } from '../installations/model.ts';

export interface InstallationRow {
  id: string;
  integration: string;
  organization: string;
  target: string;
  space: string | null;
  site: string | null;
  parent: string | null;
  status: string;
  configuration: string;
  external_ids: string | null;
  space_selection: string | null;
  created_at: string;
  updated_at: string | null;
}

export function toInstallation(row: InstallationRow): Installation {
  return {
    id: row.id,
    integration: row.integration,
    organization: row.organization,
    target: row.target as Installation['target'],
    ...(row.space ? { space: row.space } : {}),
    ...(row.site ? { site: row.site } : {}),
    ...(row.parent ? { parent: row.parent } : {}),
    status: row.status as Installation['status'],
    configuration: JSON.parse(row.configuration) as Record<string, unknown>,
    externalIds: row.external_ids ? (JSON.parse(row.external_ids) as string[]) : [],
    ...(row.space_selection
      ? { spaceSelection: JSON.parse(row.space_selection) as Installation['spaceSelection'] }
      : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? row.created_at,
  };
}
