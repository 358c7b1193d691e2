// Durable signing secrets per webhook installation, on the caller's node:sqlite handle. Owns the
// `webhook_secrets` table only; never logs a secret.

import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from './transaction.ts';
import {
  activeSigningSecrets,
  createSigningSecrets,
  DEFAULT_ROTATION_WINDOW_MS,
  generateSigningSecret,
  rotateSigningSecrets,
  type SigningSecrets,
  type SigningSecretStore,
} from '../../webhooks/secrets.ts';

interface SecretRow {
  current: string;
  previous: string | null;
  previous_expires_at: string | null;
}

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
  const toSecrets = (row: SecretRow): SigningSecrets => ({
    current: row.current,
    ...(row.previous !== null ? { previous: row.previous } : {}),
    ...(row.previous_expires_at !== null ? { previousExpiresAt: row.previous_expires_at } : {}),
  });
  const get = (installationId: string): SigningSecrets | undefined => {
    const row = statements.get.get(installationId) as SecretRow | undefined;
    return row === undefined ? undefined : toSecrets(row);
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
      const found = new Map<string, string[]>(installationIds.map((id) => [id, []]));
      if (installationIds.length === 0) return found;
      const rows = statements.many.all(JSON.stringify([...new Set(installationIds)])) as unknown as (SecretRow & {
        installation_id: string;
      })[];
      for (const row of rows) found.set(row.installation_id, activeSigningSecrets(toSecrets(row), nowMs));
      return found;
    },
    remove: async (installationId) => void statements.remove.run(installationId),
  };
}
