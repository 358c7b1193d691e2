// The sealed_oauth_states table on node:sqlite: the states the host put in GitBook-runtime OAuth
// redirects, with the integration's own state kept for the callback. Storage only; signing and the
// acceptance rules live in oauth-seal/sealed-states.ts.

import type { DatabaseSync } from 'node:sqlite';
import type { SealedStateRow, SealedStateStore } from '../../oauth-seal/sealed-states.ts';

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

export function createSqliteSealedStateStore(db: DatabaseSync): SealedStateStore {
  const statements = {
    insert: db.prepare(
      'INSERT INTO sealed_oauth_states (nonce, integration, installation_id, callback_path, binding_hash, original_state, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    get: db.prepare('SELECT * FROM sealed_oauth_states WHERE nonce = ?'),
    markUsed: db.prepare('UPDATE sealed_oauth_states SET used_at = ? WHERE nonce = ? AND used_at IS NULL'),
    deleteExpired: db.prepare('DELETE FROM sealed_oauth_states WHERE expires_at < ?'),
  };
  return {
    insert: async (row) => void statements.insert.run(row.nonce, row.integration, row.installationId, row.callbackPath, row.bindingHash, row.originalState, row.expiresAt),
    async get(nonce) {
      const row = statements.get.get(nonce) as unknown as Row | undefined;
      return row === undefined ? undefined : rowOf(row);
    },
    markUsed: async (nonce, usedAtMs) => Number(statements.markUsed.run(usedAtMs, nonce).changes) === 1,
    deleteExpired: async (beforeMs) => void statements.deleteExpired.run(beforeMs),
  };
}

function rowOf(row: Row): SealedStateRow {
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
