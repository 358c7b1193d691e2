// The webhook_secrets row as both databases return it, its record, and a batch's active secrets by
// installation. Pure; never logs a secret.

import { activeSigningSecrets, type SigningSecrets } from '../webhooks/secrets.ts';

export interface SigningSecretRow {
  current: string;
  previous: string | null;
  previous_expires_at: string | null;
}

export function toSigningSecrets(row: SigningSecretRow): SigningSecrets {
  return {
    current: row.current,
    ...(row.previous !== null ? { previous: row.previous } : {}),
    ...(row.previous_expires_at !== null ? { previousExpiresAt: row.previous_expires_at } : {}),
  };
}

/**
 * The secrets active at `nowMs` of each installation asked for, current first: the rows found,
 * and an empty list for an installation without any.
 */
export function activeByInstallation(
  installationIds: Iterable<string>,
  rows: readonly (SigningSecretRow & { installation_id: string })[],
  nowMs: number,
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const id of installationIds) found.set(id, []);
  for (const row of rows) found.set(row.installation_id, activeSigningSecrets(toSigningSecrets(row), nowMs));
  return found;
}
