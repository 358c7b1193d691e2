// A sealed OAuth state as both stores keep it (the sealed_oauth_states row) and as the seal reads
// it. Pure mapping, no SQL.

import type { SealedStateRow } from '../oauth-seal/sealed-states.ts';

/** The table's row as either driver returns it. */
export interface SealedStateTableRow {
  nonce: string;
  integration: string;
  installation_id: string;
  callback_path: string;
  binding_hash: string;
  original_state: string | null;
  expires_at: number;
  used_at: number | null;
}

export function toSealedState(row: SealedStateTableRow): SealedStateRow {
  return {
    nonce: row.nonce,
    integration: row.integration,
    installationId: row.installation_id,
    callbackPath: row.callback_path,
    bindingHash: row.binding_hash,
    originalState: row.original_state,
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

/** The values of an INSERT, in the order both stores write the columns. */
export function sealedStateValues(
  row: Omit<SealedStateRow, 'usedAt'>,
): [string, string, string, string, string, string | null, number] {
  return [
    row.nonce,
    row.integration,
    row.installationId,
    row.callbackPath,
    row.bindingHash,
    row.originalState,
    row.expiresAt,
  ];
}
