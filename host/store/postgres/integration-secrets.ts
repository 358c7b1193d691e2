// Stored integration secrets on PostgreSQL: ciphertext rows and the revision counter, changed in
// one transaction that also notifies every host (`secrets:<integration>` at commit), so the others
// reload that integration at once; the revision is their fallback while notifications are down.
// Never sees a plaintext value.

import type { IntegrationSecretStore } from '../../secrets/model.ts';
import { SECRET_COLUMNS, toStoredSecret, type SecretRow } from '../secret-rows.ts';
import type { Db, Queryable } from './connection.ts';
import { CHANNEL, secretsMessage } from './notifications.ts';

const changed = async (client: Queryable, integration: string): Promise<void> => {
  await client.query('UPDATE integration_secrets_revision SET revision = revision + 1 WHERE id = 1');
  await client.query('SELECT pg_notify($1, $2)', [CHANNEL, secretsMessage(integration)]);
};

export function createPostgresSecretStore(db: Db): IntegrationSecretStore & { announce(integration: string): void } {
  const listeners = new Set<(integration: string) => void>();
  return {
    async list(integration) {
      const { rows } =
        integration === undefined
          ? await db.query<SecretRow>(`SELECT ${SECRET_COLUMNS} FROM integration_secrets ORDER BY integration, name`)
          : await db.query<SecretRow>(
              `SELECT ${SECRET_COLUMNS} FROM integration_secrets WHERE integration = $1 ORDER BY name`,
              [integration],
            );
      return rows.map(toStoredSecret);
    },
    put: (row) =>
      db.transaction(async (client) => {
        // xmax = 0 only on a freshly inserted row: whether this was new, in the same statement.
        const { rows } = await client.query<{ created: boolean }>(
          `INSERT INTO integration_secrets (${SECRET_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (integration, name) DO UPDATE SET key_id = excluded.key_id, nonce = excluded.nonce, ciphertext =
             excluded.ciphertext, set_at = excluded.set_at, set_by = excluded.set_by
           RETURNING (xmax = 0) AS created`,
          [row.integration, row.name, row.keyId, row.nonce, row.ciphertext, row.setAt, row.setBy],
        );
        await changed(client, row.integration);
        return { created: rows[0].created };
      }),
    remove: (integration, name) =>
      db.transaction(async (client) => {
        const { rowCount } = await client.query(
          'DELETE FROM integration_secrets WHERE integration = $1 AND name = $2',
          [integration, name],
        );
        if ((rowCount ?? 0) === 0) return false;
        await changed(client, integration);
        return true;
      }),
    reseal: (integration, name, expectedNonce, sealed) =>
      db.transaction(async (client) => {
        const { rowCount } = await client.query(
          'UPDATE integration_secrets SET key_id = $1, nonce = $2, ciphertext ' +
            '= $3 WHERE integration = $4 AND name = $5 AND nonce = $6',
          [sealed.keyId, sealed.nonce, sealed.ciphertext, integration, name, expectedNonce],
        );
        if ((rowCount ?? 0) === 0) return false;
        await changed(client, integration);
        return true;
      }),
    revision: async () =>
      Number(
        (await db.query<{ revision: number }>('SELECT revision FROM integration_secrets_revision WHERE id = 1')).rows[0]
          ?.revision ?? 0,
      ),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    announce(integration) {
      for (const listener of listeners) listener(integration);
    },
  };
}
