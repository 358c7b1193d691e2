// Stored integration secrets on node:sqlite: ciphertext rows and the revision counter, bumped in
// the same transaction as every change so a host polling it sees what another process wrote (the
// command line opens the same file). Owns those two tables only; never sees a plaintext value.

import type { DatabaseSync } from 'node:sqlite';
import type { IntegrationSecretStore } from '../../secrets/model.ts';
import { SECRET_COLUMNS, toStoredSecret, type SecretRow } from '../secret-rows.ts';
import { inTransaction } from './transaction.ts';

export function createSqliteSecretStore(db: DatabaseSync): IntegrationSecretStore {
  const statements = {
    all: db.prepare(`SELECT ${SECRET_COLUMNS} FROM integration_secrets ORDER BY integration, name`),
    of: db.prepare(`SELECT ${SECRET_COLUMNS} FROM integration_secrets WHERE integration = ? ORDER BY name`),
    exists: db.prepare('SELECT 1 AS found FROM integration_secrets WHERE integration = ? AND name = ?'),
    put: db.prepare(`INSERT INTO integration_secrets (${SECRET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (integration, name) DO UPDATE SET key_id = excluded.key_id, nonce = excluded.nonce, ciphertext =
        excluded.ciphertext, set_at = excluded.set_at, set_by = excluded.set_by`),
    remove: db.prepare('DELETE FROM integration_secrets WHERE integration = ? AND name = ?'),
    reseal: db.prepare(
      'UPDATE integration_secrets SET key_id = ?, nonce = ?, ciphertext ' +
        '= ? WHERE integration = ? AND name = ? AND nonce = ?',
    ),
    bump: db.prepare('UPDATE integration_secrets_revision SET revision = revision + 1 WHERE id = 1'),
    revision: db.prepare('SELECT revision FROM integration_secrets_revision WHERE id = 1'),
  };
  return {
    async list(integration) {
      const rows = (integration === undefined
        ? statements.all.all()
        : statements.of.all(integration)) as unknown as SecretRow[];
      return rows.map(toStoredSecret);
    },
    async put(row) {
      return inTransaction(db, () => {
        const created = statements.exists.get(row.integration, row.name) === undefined;
        statements.put.run(row.integration, row.name, row.keyId, row.nonce, row.ciphertext, row.setAt, row.setBy);
        statements.bump.run();
        return { created };
      });
    },
    async remove(integration, name) {
      return inTransaction(db, () => {
        const removed = Number(statements.remove.run(integration, name).changes) > 0;
        if (removed) statements.bump.run();
        return removed;
      });
    },
    async reseal(integration, name, expectedNonce, sealed) {
      return inTransaction(db, () => {
        const replaced =
          Number(
            statements.reseal.run(sealed.keyId, sealed.nonce, sealed.ciphertext, integration, name, expectedNonce)
              .changes,
          ) > 0;
        if (replaced) statements.bump.run();
        return replaced;
      });
    },
    async revision() {
      return Number((statements.revision.get() as { revision: number | bigint } | undefined)?.revision ?? 0);
    },
  };
}
