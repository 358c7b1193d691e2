// The sealed_oauth_states table on PostgreSQL. markUsed is one conditional UPDATE, so a state
// redeemed on one host is refused on every other: row locking decides which of two callbacks wins.

import type { SealedStateStore } from '../../oauth-seal/sealed-states.ts';
import type { Db } from './connection.ts';

interface Row {
  nonce: string;
  integration: string;
  installation_id: string;
  callback_path: string;
  binding_hash: string;
  original_state: string | null;
  expires_at: number;
  used_at: number | null;
}

export function createPostgresSealedStateStore(db: Db): SealedStateStore {
  return {
    insert: async (row) =>
      void (await db.query(
        'INSERT INTO sealed_oauth_states (nonce, integration, installation_id, callback_path, binding_hash, original_state, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [row.nonce, row.integration, row.installationId, row.callbackPath, row.bindingHash, row.originalState, row.expiresAt],
      )),
    async get(nonce) {
      const [row] = (await db.query<Row>('SELECT * FROM sealed_oauth_states WHERE nonce = $1', [nonce])).rows;
      return row === undefined
        ? undefined
        : {
            nonce: row.nonce,
            integration: row.integration,
            installationId: row.installation_id,
            callbackPath: row.callback_path,
            bindingHash: row.binding_hash,
            originalState: row.original_state,
            expiresAt: row.expires_at,
            usedAt: row.used_at,
          };
    },
    markUsed: async (nonce, usedAtMs) => (await db.query('UPDATE sealed_oauth_states SET used_at = $1 WHERE nonce = $2 AND used_at IS NULL', [usedAtMs, nonce])).rowCount === 1,
    deleteExpired: async (beforeMs) => void (await db.query('DELETE FROM sealed_oauth_states WHERE expires_at < $1', [beforeMs])),
  };
}
