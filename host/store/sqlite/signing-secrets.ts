// Durable signing secrets per webhook installation, on the caller's node:sqlite handle. Owns the
// `webhook_secrets` table only; never logs a secret.

import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from './transaction.ts';
import { activeByInstallation, toSigningSecrets, type SigningSecretRow } from '../signing-secret-rows.ts';
import {
  activeSigningSecrets,
  createSigningSecrets,
  DEFAULT_ROTATION_WINDOW_MS,
  generateSigningSecret,
  rotateSigningSecrets,
  type SigningSecrets,
  type SigningSecretStore,
} from '../../webhooks/secrets.ts';

export function createSigningSecretStore(
  db: DatabaseSync,
  generate: () => string = generateSigningSecret,
): SigningSecretStore {
  const statements = {
    get: db.prepare('SELECT current, previous, previous_expires_at FROM webhook_secrets WHERE installation_id = ?'),
    put: db.prepare(`INSERT INTO webhook_secrets (installation_id, current, previous, previous_expires_at) VALUES (?, ?,
      ?, ?)
      ON CONFLICT (installation_id) DO UPDATE SET current = excluded.current, previous = excluded.previous,
        previous_expires_at = excluded.previous_expires_at`),
    many: db.prepare(
      'SELECT installation_id, current, previous, previous_expires_at FROM webhook_secrets ' +
        'WHERE installation_id IN (SELECT value FROM json_each(?))',
    ),
    remove: db.prepare('DELETE FROM webhook_secrets WHERE installation_id = ?'),
  };
  const get = (installationId: string): SigningSecrets | undefined => {
    const row = statements.get.get(installationId) as SigningSecretRow | undefined;
    return row === undefined ? undefined : toSigningSecrets(row);
  };
  const put = (installationId: string, secrets: SigningSecrets): void => {
    statements.put.run(installationId, secrets.current, secrets.previous ?? null, secrets.previousExpiresAt ?? null);
  };
  return {
    async create(installationId) {
      const secrets = createSigningSecrets(generate);
      put(installationId, secrets);
      return secrets.current;
    },
    async rotate(installationId, nowMs, windowMs = DEFAULT_ROTATION_WINDOW_MS) {
      // Read and write in one transaction: two rotations never both keep the same "previous".
      return inTransaction(db, () => {
        const existing = get(installationId);
        if (existing === undefined) return undefined;
        const rotated = rotateSigningSecrets(existing, nowMs, windowMs, generate);
        put(installationId, rotated);
        return rotated.current;
      });
    },
    get: async (installationId) => get(installationId),
    async secretsFor(installationId, nowMs) {
      const secrets = get(installationId);
      return secrets === undefined ? [] : activeSigningSecrets(secrets, nowMs);
    },
    async secretsForMany(installationIds, nowMs) {
      if (installationIds.length === 0) return new Map();
      const rows = statements.many.all(
        JSON.stringify([...new Set(installationIds)]),
      ) as unknown as (SigningSecretRow & {
        installation_id: string;
      })[];
      return activeByInstallation(installationIds, rows, nowMs);
    },
    remove: async (installationId) => void statements.remove.run(installationId),
  };
}
