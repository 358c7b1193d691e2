// Signing secrets of webhook installations on PostgreSQL. Rotation reads and writes under a row
// lock in one transaction, so two hosts rotating at once never both keep the same "previous".

import {
  activeSigningSecrets,
  createSigningSecrets,
  DEFAULT_ROTATION_WINDOW_MS,
  generateSigningSecret,
  rotateSigningSecrets,
  type SigningSecrets,
  type SigningSecretStore,
} from '../../webhooks/secrets.ts';
import type { Db, Queryable } from './connection.ts';
import { activeByInstallation, toSigningSecrets, type SigningSecretRow } from '../signing-secret-rows.ts';

const PUT = `INSERT INTO webhook_secrets (installation_id, current, previous, previous_expires_at) VALUES ($1, $2, $3,
  $4)
  ON CONFLICT (installation_id) DO UPDATE SET current = excluded.current, previous = excluded.previous,
    previous_expires_at = excluded.previous_expires_at`;

export function createPostgresSigningSecretStore(
  db: Db,
  generate: () => string = generateSigningSecret,
): SigningSecretStore {
  const get = async (client: Queryable, installationId: string, lock = false): Promise<SigningSecrets | undefined> => {
    const { rows } = await client.query<SigningSecretRow>(
      `SELECT current, previous, previous_expires_at FROM webhook_secrets ` +
        `WHERE installation_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [installationId],
    );
    return rows[0] === undefined ? undefined : toSigningSecrets(rows[0]);
  };
  const put = (client: Queryable, installationId: string, secrets: SigningSecrets) =>
    client.query(PUT, [installationId, secrets.current, secrets.previous ?? null, secrets.previousExpiresAt ?? null]);
  const pool: Queryable = {
    query: ((text: string, values?: unknown[]) => db.query(text, values)) as Queryable['query'],
  };
  return {
    async create(installationId) {
      const secrets = createSigningSecrets(generate);
      await put(pool, installationId, secrets);
      return secrets.current;
    },
    rotate: (installationId, nowMs, windowMs = DEFAULT_ROTATION_WINDOW_MS) =>
      db.transaction(async (client) => {
        const existing = await get(client, installationId, true);
        if (existing === undefined) return undefined;
        const rotated = rotateSigningSecrets(existing, nowMs, windowMs, generate);
        await put(client, installationId, rotated);
        return rotated.current;
      }),
    get: (installationId) => get(pool, installationId),
    async secretsFor(installationId, nowMs) {
      const secrets = await get(pool, installationId);
      return secrets === undefined ? [] : activeSigningSecrets(secrets, nowMs);
    },
    async secretsForMany(installationIds, nowMs) {
      if (installationIds.length === 0) return new Map();
      const { rows } = await db.query<SigningSecretRow & { installation_id: string }>(
        'SELECT installation_id, current, previous, previous_expires_at FROM webhook_secrets ' +
          'WHERE installation_id = ANY($1::text[])',
        [[...new Set(installationIds)]],
        'signing_secrets_many',
      );
      return activeByInstallation(installationIds, rows, nowMs);
    },
    remove: async (installationId) =>
      void (await db.query('DELETE FROM webhook_secrets WHERE installation_id = $1', [installationId])),
  };
}
