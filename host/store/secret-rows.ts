// The integration_secrets row as both databases return it, and its record. Pure.

import type { SecretSetBy, StoredSecretRow } from '../secrets/model.ts';

export interface SecretRow {
  integration: string;
  name: string;
  key_id: number | string;
  nonce: string;
  ciphertext: string;
  set_at: string;
  set_by: string;
}

export const SECRET_COLUMNS = 'integration, name, key_id, nonce, ciphertext, set_at, set_by';

export function toStoredSecret(row: SecretRow): StoredSecretRow {
  return {
    integration: row.integration,
    name: row.name,
    keyId: Number(row.key_id),
    nonce: row.nonce,
    ciphertext: row.ciphertext,
    setAt: row.set_at,
    setBy: row.set_by as SecretSetBy,
  };
}
