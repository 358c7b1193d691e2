// The sealed_oauth_states table on node:sqlite: the states the host put in GitBook-runtime OAuth
// redirects, with the integration's own state kept for the callback. Storage only; signing and the
// acceptance rules live in oauth-seal/sealed-states.ts.

import type { DatabaseSync } from 'node:sqlite';
import type { SealedStateStore } from '../../oauth-seal/sealed-states.ts';
import { sealedStateValues, toSealedState, type SealedStateTableRow } from '../sealed-state-rows.ts';

export function createSqliteSealedStateStore(db: DatabaseSync): SealedStateStore {
  const statements = {
    insert: db.prepare(
      'INSERT INTO sealed_oauth_states (nonce, integration, installation_id, ' +
        'callback_path, binding_hash, original_state, expires_at) VALUES (?, ?, ?, ?, ?, ?, ' +
        '?)',
    ),
    get: db.prepare('SELECT * FROM sealed_oauth_states WHERE nonce = ?'),
    markUsed: db.prepare('UPDATE sealed_oauth_states SET used_at = ? WHERE nonce = ? AND used_at IS NULL'),
    deleteExpired: db.prepare('DELETE FROM sealed_oauth_states WHERE expires_at < ?'),
  };
  return {
    insert: async (row) => void statements.insert.run(...sealedStateValues(row)),
    async get(nonce) {
      const row = statements.get.get(nonce) as unknown as SealedStateTableRow | undefined;
      return row === undefined ? undefined : toSealedState(row);
    },
    markUsed: async (nonce, usedAtMs) => Number(statements.markUsed.run(usedAtMs, nonce).changes) === 1,
    deleteExpired: async (beforeMs) => void statements.deleteExpired.run(beforeMs),
  };
}
