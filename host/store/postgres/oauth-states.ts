// The oauth_states table on PostgreSQL. markUsed is one conditional UPDATE, so a state consumed
// on one host is refused on every other: row locking decides which of two callbacks wins.

import type { OAuthStateStore } from '../../installations/oauth-state.ts';
import type { Db } from './connection.ts';

export function createPostgresOAuthStateStore(db: Db): OAuthStateStore {
  return {
    insert: async (nonce, installationId, expiresAtMs) =>
      void (await db.query('INSERT INTO oauth_states (nonce, installation_id, expires_at) VALUES ($1, $2, $3)', [
        nonce,
        installationId,
        expiresAtMs,
      ])),
    markUsed: async (nonce, installationId, usedAtMs) =>
      (
        await db.query(
          'UPDATE oauth_states SET used_at = $1 WHERE nonce = $2 AND installation_id = $3 AND used_at IS NULL',
          [usedAtMs, nonce, installationId],
        )
      ).rowCount === 1,
    deleteExpired: async (beforeMs) =>
      void (await db.query('DELETE FROM oauth_states WHERE expires_at < $1', [beforeMs])),
  };
}
