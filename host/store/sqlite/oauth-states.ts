// The oauth_states table on node:sqlite: which state nonces the host issued, to which
// installation, until when, and whether they were used. Storage only; signing and the acceptance
// rules live in installations/oauth-state.ts.

import type { DatabaseSync } from 'node:sqlite';
import type { OAuthStateStore } from '../../installations/oauth-state.ts';

export function createSqliteOAuthStateStore(db: DatabaseSync): OAuthStateStore {
  const statements = {
    insert: db.prepare('INSERT INTO oauth_states (nonce, installation_id, expires_at) VALUES (?, ?, ?)'),
    markUsed: db.prepare(
      'UPDATE oauth_states SET used_at = ? WHERE nonce = ? AND installation_id = ? AND used_at IS NULL',
    ),
    deleteExpired: db.prepare('DELETE FROM oauth_states WHERE expires_at < ?'),
  };
  return {
    insert: async (nonce, installationId, expiresAtMs) =>
      void statements.insert.run(nonce, installationId, expiresAtMs),
    markUsed: async (nonce, installationId, usedAtMs) =>
      Number(statements.markUsed.run(usedAtMs, nonce, installationId).changes) === 1,
    deleteExpired: async (beforeMs) => void statements.deleteExpired.run(beforeMs),
  };
}
