// The sealed_oauth_states table on PostgreSQL. markUsed is one conditional UPDATE, so a state
// redeemed on one host is refused on every other: row locking decides which of two callbacks wins.

import type { SealedStateStore } from '../../oauth-seal/sealed-states.ts';
import type { Db } from './connection.ts';
import { sealedStateValues, toSealedState, type SealedStateTableRow } from '../sealed-state-rows.ts';

export function createPostgresSealedStateStore(db: Db): SealedStateStore {
  return {
    insert: async (row) =>
      void (await db.query(
        'INSERT INTO sealed_oauth_states (nonce, integration, installation_id, callback_path, ' +
          'binding_hash, original_state, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        sealedStateValues(row),
      )),
    async get(nonce) {
      const [row] = (await db.query<SealedStateTableRow>('SELECT * FROM sealed_oauth_states WHERE nonce = $1', [nonce]))
        .rows;
      return row === undefined ? undefined : toSealedState(row);
    },
    markUsed: async (nonce, usedAtMs) =>
      (
        await db.query('UPDATE sealed_oauth_states SET used_at = $1 WHERE nonce = $2 AND used_at IS NULL', [
          usedAtMs,
          nonce,
        ])
      ).rowCount === 1,
    deleteExpired: async (beforeMs) =>
      void (await db.query('DELETE FROM sealed_oauth_states WHERE expires_at < $1', [beforeMs])),
  };
}
